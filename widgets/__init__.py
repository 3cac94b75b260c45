"""Reusable Textual widgets of the inspector: they render what they are given and post messages."""
