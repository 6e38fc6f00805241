"""Quarry's MCP server (front door): the facade's features as MCP tools, over stdio or streamable HTTP."""
