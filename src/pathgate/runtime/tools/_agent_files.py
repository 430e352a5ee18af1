"""Which files of a project the agent CLIs and editors take commands from, and which of
their keys and variables hold commands: the data :mod:`._agent_commands` reads by (kept
apart so the list can grow without the reader growing)."""

from __future__ import annotations

__all__ = ["COMMAND_KEYS", "DEVCONTAINER_DIR", "HOOK_DIRS", "MAX_DEVCONTAINERS", "OPTION_VARS", "PROFILES",
           "SETTINGS", "USER_SETTINGS"]

#: Settings files (root-relative) whose commands the agent CLIs run.
SETTINGS = (".claude/settings.json", ".claude/settings.local.json", ".cursor/hooks.json", ".cursor/mcp.json",
            ".cursor/cli.json", ".cursor/environment.json", ".gemini/settings.json", ".mcp.json",
            ".vscode/mcp.json", ".vscode/settings.json", ".vscode/tasks.json", ".lsp.json",
            # red team 14 F11: what an editor runs from the project (a dev container's
            # `initializeCommand` runs on the host; a launch configuration's `preLaunchTask`)
            ".vscode/launch.json", ".devcontainer/devcontainer.json", ".devcontainer.json",
            # red team 20 L6/L13: other hosts' JSON files naming servers or commands
            ".roo/mcp.json", ".kiro/settings/mcp.json", ".amazonq/mcp.json", "opencode.json", "opencode.jsonc",
            ".zed/settings.json", ".zed/tasks.json", ".cursor/worktrees.json")
#: Where more dev container configurations live: ``.devcontainer/<name>/devcontainer.json``.
DEVCONTAINER_DIR = ".devcontainer"
#: Named dev container configurations read per directory; past it nothing is writable.
MAX_DEVCONTAINERS = 64
#: The same files in the user's home, plus Claude Code's user and local MCP lists.
USER_SETTINGS = (".claude/settings.json", ".claude/settings.local.json", ".cursor/hooks.json", ".cursor/mcp.json",
                  ".gemini/settings.json", ".claude.json", ".claude/plugins/known_marketplaces.json")
#: Directories (root-relative, normalised) whose files are never writable: the agent CLIs'
#: hook scripts, and what else they take commands, hooks or tool grants from (Claude Code's
#: subagents, skills and slash commands carry ``hooks:``/``allowed-tools:`` front matter and
#: ``!`cmd``` lines; Gemini's extensions list MCP servers).
HOOK_DIRS = (".claude/hooks", ".cursor/hooks", ".gemini/hooks", ".claude/agents", ".claude/skills",
             ".claude/commands", ".gemini/extensions", ".gemini/commands",
             # other hosts' hooks, plugins and agent configurations (red team 20 L6): opencode's
             # plugins, Kiro's agent hooks, Cline's hooks, Amazon Q's agents, Continue's whole
             # configuration (its MCP servers are YAML files in `.continue/mcpServers/`)
             ".opencode/plugin", ".opencode/plugins", ".kiro/hooks", ".clinerules/hooks", ".amazonq/agents",
             ".continue")
#: JSON keys whose string value is a command line (besides ``command``).
COMMAND_KEYS = frozenset({"command", "apiKeyHelper", "awsAuthRefresh", "awsCredentialExport", "otelHeadersHelper",
                           "toolDiscoveryCommand", "toolCallCommand", "install", "start",
                           # Gemini CLI: v1's MCP server command, v2's nested ``tools.discoveryCommand``,
                           # ``tools.callCommand``, ``mcp.serverCommand`` (red team 20)
                           "mcpServerCommand", "discoveryCommand", "callCommand", "serverCommand",
                           # VS Code: a task's (or every task's) shell, the workspace's Python, the
                           # git it runs, the shells of its terminals, the runtimes its extensions load
                           "executable", "python.defaultInterpreterPath", "git.path", "terminal.integrated.shell.linux",
                           "terminal.integrated.shell.osx", "terminal.integrated.shell.windows", "eslint.runtime",
                           "eslint.nodePath", "typescript.tsdk", "python.pythonPath",
                           # dev containers: a string (a shell line), an array (one word each)
                           # or an object of named commands (each either)
                           "initializeCommand", "onCreateCommand", "updateContentCommand",
                           "postCreateCommand", "postStartCommand", "postAttachCommand",
                           # Cursor's `.cursor/worktrees.json`
                           "setup-worktree", "setup-worktree-unix", "setup-worktree-windows"})
#: ``env`` variables read as an interpreter's options (red team 20 L5: ``RUBYOPT=-r./evil``
#: loads ``evil.rb``, ``PERL5OPT=-Ilib`` puts ``lib/`` first on the module path).
OPTION_VARS = {"NODE_OPTIONS": "node", "NPM_CONFIG_NODE_OPTIONS": "node", "RUBYOPT": "ruby", "PERL5OPT": "perl"}
#: VS Code's terminal profiles: ``terminal.integrated.automationProfile.<os>`` (the shell tasks
#: run in: one profile) and ``terminal.integrated.profiles.<os>`` (named profiles), each a
#: ``path`` (or paths tried in turn) with ``args``.
PROFILES = ("terminal.integrated.automationProfile.", "terminal.integrated.profiles.")
