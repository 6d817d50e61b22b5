"""Language models in the loop: one client interface, OpenAI-compatible and embedded backends,
a response cache, and the tool-call prompt and parser for models that only write text."""

from envfactory.llm.client import LLMClient, LLMError, Managed, Stats, make_client
from envfactory.llm.types import ChatRequest, ChatResponse, Usage

__all__ = ["ChatRequest", "ChatResponse", "LLMClient", "LLMError", "Managed", "Stats", "Usage", "make_client"]
