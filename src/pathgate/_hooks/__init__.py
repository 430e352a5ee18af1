"""``pathgate hook``: pathgate's gates as a pre-tool hook of Claude Code, Cursor and Gemini CLI.

``_core`` decides (agent-independent), ``_agents`` speaks each tool's hook protocol,
``_run`` runs one payload failing closed, ``_install`` merges the settings, ``_cli`` parses
the command line. Nothing here is imported by ``import pathgate``.
"""
