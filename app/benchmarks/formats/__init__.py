"""Parsers of benchmark result formats: pure functions from bytes to `ParsedResult`s."""
