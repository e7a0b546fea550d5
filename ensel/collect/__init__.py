"""Regenerate the paper's raw data: query sets, prompts, the collector, its store, a simulated pool."""
