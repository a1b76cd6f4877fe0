"""statusboard: which kernel backends of an LLM inference engine work, fail or win on which GPU."""
