"""Web search: options, engines, the runner, health, the cache, several engines at once."""
