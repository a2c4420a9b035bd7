"""Answering: evidence → extract / refuse / generate with citations → validate → structured answer.

Used by the answer graph, the agent and MCP alike; it imports neither of them.
"""
