"""Launch arguments: user-supplied parameters flattened, harness flags injected only where they fit.

The rules follow GPUStack's backends:

* user parameters are strings such as ``"--ctx-size 1024"`` or ``'--alias "my model"'``; each is split like a
  shell would (``["--ctx-size", "1024"]``), except ``"--flag = value"`` which becomes ``"--flag=value"``
  with the value kept exactly as written;
* a harness flag is injected only when the user did not pass it already under any of its spellings
  (``-c`` and ``--ctx-size`` are the same flag, so are ``--context-shift`` and ``--no-context-shift``) and
  only when the binary supports it.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from .capabilities import Capabilities

_FLAG_EQUALS_VALUE = re.compile(r"^(--?[^\s=]+)\s*=\s*(.*)$", re.DOTALL)

# Values of these flags are secrets: rendered as *** wherever a command line is printed.
SECRET_FLAGS = frozenset({"--api-key"})


def flatten_params(params: Sequence[str] | None) -> list[str]:
    """Flatten user parameters into argv tokens (see the module docstring for the rules)."""
    tokens: list[str] = []
    for param in params or []:
        text = param.strip()
        if not text:
            continue
        equals = _FLAG_EQUALS_VALUE.match(text)
        if equals:
            tokens.append(f"{equals.group(1)}={equals.group(2).strip()}")
        else:
            tokens.extend(shlex.split(text))
    return tokens


def passed_flags(args: Iterable[str], capabilities: Capabilities | None = None) -> set[str]:
    """The canonical names of every flag present in ``args`` (``-c 8`` and ``--ctx-size=8`` alike)."""
    flags = set()
    for token in args:
        if token.startswith("-") and not _is_number(token):
            name = token.split("=", 1)[0]
            flags.add(capabilities.canonical_flag(name) if capabilities else name)
    return flags


def flag_value(args: Sequence[str], flag: str) -> str | None:
    """The value given to ``flag`` in ``args`` (``--port 9000`` or ``--port=9000``), else None."""
    for index, token in enumerate(args):
        if token == flag and index + 1 < len(args):
            return args[index + 1]
        if token.startswith(flag + "="):
            return token.split("=", 1)[1]
    return None


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Flag:
    """One flag the harness wants to pass, with its values.

    ``required`` flags are what a scenario is about: a binary without one cannot run the scenario.
    Optional ones (quieter logs, say) are simply left out where the binary lacks them.
    """

    name: str
    values: tuple[str, ...] = ()
    required: bool = True

    def tokens(self) -> list[str]:
        return [self.name, *self.values]


@dataclass
class LaunchCommand:
    """The final argv of a llama-server, remembering which tokens the harness injected."""

    binary: str
    # repr=False: these may hold an API key; render() masks it
    injected: list[str] = field(default_factory=list, repr=False)
    user: list[str] = field(default_factory=list, repr=False)
    # required flags the binary lacks; a non-empty list means the scenario cannot run on this binary
    unsupported: list[str] = field(default_factory=list)
    # injected flags dropped because the user passed the same flag
    overridden: list[str] = field(default_factory=list)

    @property
    def args(self) -> list[str]:
        return [*self.injected, *self.user]

    @property
    def argv(self) -> list[str]:
        return [self.binary, *self.args]

    def render(self) -> str:
        """The command line as a person reads it: secrets masked, injected tokens marked."""
        lines = [shlex.join(redact_args([self.binary, *self.args]))]
        lines.append(f"  injected by the harness: {shlex.join(redact_args(self.injected)) or '(none)'}")
        lines.append(f"  user-supplied:           {shlex.join(redact_args(self.user)) or '(none)'}")
        if self.overridden:
            lines.append(f"  not injected, user passed them: {' '.join(self.overridden)}")
        return "\n".join(lines)


def redact_args(args: Sequence[str]) -> list[str]:
    """Replace the value of every secret flag by ``***``."""
    redacted = list(args)
    for index, token in enumerate(redacted):
        name = token.split("=", 1)[0]
        if name in SECRET_FLAGS:
            if "=" in token:
                redacted[index] = f"{name}=***"
            elif index + 1 < len(redacted):
                redacted[index + 1] = "***"
    return redacted


def build_launch_command(binary: str, flags: Sequence[Flag], user_args: Sequence[str],
                         capabilities: Capabilities) -> LaunchCommand:
    """Merge the harness's flags with the user's arguments, user first in authority."""
    user_passed = passed_flags(user_args, capabilities)
    command = LaunchCommand(binary=binary, user=list(user_args))
    for flag in flags:
        if capabilities.canonical_flag(flag.name) in user_passed:
            command.overridden.append(flag.name)
        elif not capabilities.supports(flag.name):
            if flag.required:
                command.unsupported.append(flag.name)
        else:
            command.injected.extend(flag.tokens())
    return command
