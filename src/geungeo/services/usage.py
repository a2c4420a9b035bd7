"""Token counts for the OpenAI-compatible ``usage``: an estimate, the same for prompts and answers.

geungeo has no tokenizer of the model that answered (often none did: extractive answers), so a "token" is
one Kiwi morpheme (the analyser that indexes the documents), punctuation included; whitespace is not counted.
Korean text gives about 1 token per 1.5 characters this way, close to what LLM tokenizers give.
"""

from __future__ import annotations

from collections.abc import Iterable

from geungeo.text.kiwi import kiwi


def count_tokens(text: str) -> int:
    """The estimated token count of ``text`` (Kiwi morphemes)."""
    return len(kiwi().tokenize(text)) if text.strip() else 0


def usage(prompt: Iterable[str], completion: str) -> dict[str, int]:
    """OpenAI's ``usage`` object for these prompt texts and this completion."""
    prompt_tokens = sum(count_tokens(t) for t in prompt)
    completion_tokens = count_tokens(completion)
    return {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens}
