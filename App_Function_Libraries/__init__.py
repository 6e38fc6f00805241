"""Quarry's libraries: one package per pipeline stage or data source."""
