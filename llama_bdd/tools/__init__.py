"""Command-line tools of the project (step checks, catalog, benchmark)."""
