"""LangChain and Ollama: chat-model factory, context-window discovery, tools, agent runner."""
