"""Helpers every web surface (pages, API, OAI) shares; plain functions over WSGI values, no framework."""
