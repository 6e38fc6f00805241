"""Research: the pipeline stages from a question to a cited report, one module per stage."""
