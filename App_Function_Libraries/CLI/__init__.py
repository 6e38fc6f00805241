"""Command-line interface: one module per subcommand group, each with register(subparsers)."""
