"""The chat model's prompts, one file each (``<name>.md``, package data), loaded once.

A prompt's ``{placeholder}`` is filled by :func:`render` (only the names given, so the JSON braces the
prompts show stay as written). :func:`system_message` makes the system message of a call; it carries the
prompt's name in the message's ``name`` (never sent to the model: the chat-completions wire has only the
role and the content), so logs, call records and the scripted test model know which prompt a call is.
"""

from __future__ import annotations

import functools
from importlib import resources

from langchain_core.messages import SystemMessage


@functools.cache
def load(name: str) -> str:
    """The text of prompt ``name`` (``prompts/<name>.md``, its final newline dropped)."""
    try:
        text = resources.files(__package__).joinpath(f"{name}.md").read_text(encoding="utf-8")
    except FileNotFoundError:
        raise KeyError(f"no prompt named {name!r}") from None
    return text.removesuffix("\n")


def render(name: str, **values: object) -> str:
    """Prompt ``name`` with each ``{key}`` replaced by its value (every key must be a placeholder of it)."""
    text = load(name)
    for key, value in values.items():
        placeholder = f"{{{key}}}"
        if placeholder not in text:
            raise KeyError(f"prompt {name!r} has no placeholder {placeholder}")
        text = text.replace(placeholder, str(value))
    return text


def system_message(name: str, text: str | None = None) -> SystemMessage:
    """The system message of prompt ``name``: ``text`` (its rendering, with any additions), by default the prompt."""
    return SystemMessage(content=load(name) if text is None else text, name=name)


def names() -> list[str]:
    """Every prompt's name."""
    return sorted(p.name.removesuffix(".md") for p in resources.files(__package__).iterdir() if p.name.endswith(".md"))
