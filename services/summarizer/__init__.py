"""Summarizer: writes Chinese and English AI summaries and publishes the public papers.new.v1 topic."""
