"""Running a benchmark's test command confined to a throw-away folder.

A test command comes from the benchmark's data (``test_cmd``, BugsInPy's ``run_test.sh``) or the
user; it is code nobody here has read. So it is run

* **without a shell**: :func:`split_command` turns ``"pytest a.py; pytest b.py"`` or
  ``"A=1 python -m pytest x && tox -e py"`` into steps (environment assignments + argv); pipes,
  redirections, background jobs, ``||``, command substitution and variable expansion are refused
  (:class:`InputError` naming the command), as a shell would have run them silently;
* **with a scrubbed environment**: only ``PATH``, ``LANG``, ``HOME`` and ``TMPDIR`` (both inside
  the work folder) and the step's own assignments: no API key, token or proxy setting reaches it;
* **confined** (:func:`confinement`): in new user, mount, network and PID namespaces (util-linux
  ``unshare``, no root needed where unprivileged user namespaces are allowed) every mount is
  read-only except the work folder, the caller's home folder is hidden behind an empty tmpfs,
  there is no network beyond loopback (brought up for tests that serve on 127.0.0.1),
  ``/proc`` shows only the test's own processes and ``/dev`` is a fresh read-only folder with the
  usual nodes (``null``, ``zero``, ``full``, ``random``, ``urandom``, ``tty``) and a private
  ``/dev/shm``. Where namespaces are
  not available the run is refused unless the caller opts in with ``allow_unsandboxed``
  (``--allow-unsandboxed``), and the outcome records ``confinement: none``. **Unsandboxed is
  unsafe**: the command runs as you, can read and write whatever you can and reach the network;
  only its environment is scrubbed, and this process's own environment (``/proc/<pid>/environ``,
  where the API keys are) is cleared first (:func:`_protect_parent`);
* **with a time limit** for the whole command; on timeout every process of it is killed;
* **with bounded output**: the first and the last :data:`OUTPUT_KEEP` bytes of each step's output
  are kept (the part between is cut, and says how much), whatever the command prints.

Each step runs even when an earlier one failed (its outcome is recorded); the caller decides from
the tests' results (:mod:`._testlog`), never from exit codes alone.
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..errors import ExecutionError, InputError

#: bytes of a step's output kept from its start and from its end (the rest is cut)
OUTPUT_KEEP = 4 * 1024 * 1024

_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SEPARATORS = {"&&", ";"}
_SHELL_ONLY = re.compile(r"[`$]|^[<>|&]|[<>]$")


@dataclass(frozen=True)
class Step:
    """One command of a test command: ``env`` assignments, then ``argv``."""

    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        return shlex.join([f"{k}={v}" for k, v in self.env] + list(self.argv))


@dataclass(frozen=True)
class StepRun:
    """What one step did: exit code (``None`` when it timed out) and its output (stdout+stderr)."""

    step: Step
    returncode: int | None
    output: str
    duration_s: float


def split_command(cmd: str, *, what: str = "test command") -> tuple[Step, ...]:
    """The steps of ``cmd``, split on ``&&``, ``;`` and newlines, without a shell."""
    lex = shlex.shlex(cmd.replace("\n", " ; "), posix=True, punctuation_chars=";&|<>")
    lex.whitespace_split = True
    try:
        tokens = list(lex)
    except ValueError as exc:  # shlex: "No closing quotation" / "No escaped character"
        raise InputError(f"{what} {cmd!r}: {exc}") from None
    steps: list[Step] = []
    current: list[str] = []
    for tok in tokens + [";"]:
        if tok in _SEPARATORS:
            if current:
                steps.append(_step(current, cmd, what))
            current = []
            continue
        if _SHELL_ONLY.search(tok) or tok in {"|", "||", "&", "|&", ">>", "<<"}:
            raise InputError(f"{what} {cmd!r}: {tok!r} needs a shell; tests run without one "
                             "(give the plain commands, separated by ';' or '&&')")
        current.append(tok)
    if not steps:
        raise InputError(f"{what} {cmd!r}: no command in it")
    return tuple(steps)


def _step(tokens: list[str], cmd: str, what: str) -> Step:
    env: list[tuple[str, str]] = []
    while tokens and _ASSIGN.match(tokens[0]):
        key, _, value = tokens.pop(0).partition("=")
        env.append((key, value))
    if not tokens:
        raise InputError(f"{what} {cmd!r}: an assignment without a command")
    return Step(tuple(tokens), tuple(env))


# Runs inside the namespaces as the mapped root: the work folder stays writable (bind-mounted on
# itself), every other mount becomes read-only, the caller's home disappears under a tmpfs except
# the folders the test needs to find its interpreter and tools (``keep``: PATH entries and Python's
# prefixes inside it, read-only), then the step runs with exactly the environment given.
# Arguments: work folder, home to hide, kept folders (relative, ':'-separated), cwd, other
# writable folders (':'-separated), then `env -i NAME=VALUE ... argv`.
_CONFINE = r"""
set -e
work=$1 hide=$2 keep=$3 cwd=$4 extra=$5; shift 5
mount --bind "$work" "$work"
old_ifs=$IFS; IFS=:
for w in $extra; do mount --bind "$w" "$w"; done
IFS=$old_ifs
awk '{print $5}' /proc/self/mountinfo | sort -u | while read -r m; do
  m=$(printf '%b' "$m")
  case "$m" in "$work"|"$work"/*|/proc|/proc/*|/sys|/sys/*|/dev|/dev/pts|/dev/pts/*) continue;; esac
  case ":$extra:" in *":$m:"*) continue;; esac
  mount -o remount,bind,ro "$m" 2>/dev/null || mount -o remount,bind,ro,nosuid,nodev "$m"
done
# a fresh /dev: the usual nodes bound from the real one, a private /dev/shm, read-only otherwise
old="$work/.old-dev"; mkdir -p "$old"; mount --rbind /dev "$old"
mount -t tmpfs -o size=64k,mode=755 none /dev
for n in null zero full random urandom tty; do
  [ -e "$old/$n" ] || continue; : > "/dev/$n"; mount --bind "$old/$n" "/dev/$n"
done
mkdir /dev/shm /dev/pts; mount -t tmpfs -o size=64m,mode=1777,nosuid,nodev none /dev/shm
ln -s /proc/self/fd /dev/fd; ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout; ln -s /proc/self/fd/2 /dev/stderr
mount -o remount,bind,ro /dev
umount -l "$old"; rmdir "$old"
if [ -n "$hide" ] && [ -d "$hide" ]; then
  real="$work/.real-home"; mkdir -p "$real"; mount --bind "$hide" "$real"
  mount -t tmpfs -o size=64k none "$hide"
  old_ifs=$IFS; IFS=:
  for rel in $keep; do
    rw=${rel#+}
    [ -d "$real/$rw" ] || continue
    mkdir -p "$hide/$rw"; mount --bind "$real/$rw" "$hide/$rw"
    [ "$rw" != "$rel" ] || mount -o remount,bind,ro "$hide/$rw"
  done
  IFS=$old_ifs
  mount -o remount,ro "$hide"; umount -l "$real"; rmdir "$real"
fi
# loopback up (tests that serve on 127.0.0.1); without ip(8) it stays down and such tests fail
if command -v ip >/dev/null 2>&1; then ip link set lo up 2>/dev/null || true; fi
cd "$cwd"
exec "$@"
"""


def _unshare(network: bool = False) -> list[str] | None:
    exe = shutil.which("unshare")
    if exe is None:
        return None
    return [exe, "--user", "--map-root-user", "--mount", *([] if network else ["--net"]), "--pid",
            "--fork", "--kill-child=SIGKILL", "--mount-proc"]


@functools.cache
def confinement() -> str:
    """``"namespaces"`` when confined runs work on this machine (probed once), else ``"none"``."""
    cmd = _unshare()
    if cmd is None:
        return "none"
    probe = Path(os.environ.get("TMPDIR", "/tmp"))
    try:
        proc = subprocess.run([*cmd, "sh", "-c", _CONFINE, "sh", str(probe), "", "", str(probe), "", "true"],
                              capture_output=True, timeout=30, check=False, env=_base_env(probe))
    except (OSError, subprocess.TimeoutExpired):
        return "none"
    return "namespaces" if proc.returncode == 0 else "none"


def _base_env(work: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", os.defpath), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
            "HOME": str(work / "home"), "TMPDIR": str(work / "tmp"), "PYTHONDONTWRITEBYTECODE": "1"}


def _hidden_home(work: Path, visible: Sequence[str | os.PathLike[str]] = (),
                 writable: Sequence[str | os.PathLike[str]] = ()) -> tuple[str, str]:
    """The home folder to hide (``""``: none) and, ':'-joined relative to it, the folders inside
    it that stay visible: the PATH entries, Python's own prefixes and ``visible`` (read-only),
    and ``writable`` (marked ``+``)."""
    home = Path.home().resolve()
    work = work.resolve()
    if home == work or home in work.parents or home == Path("/"):
        return "", ""
    wanted = [*os.environ.get("PATH", "").split(os.pathsep), sys.prefix, sys.base_prefix, sys.exec_prefix,
              *map(str, visible)]
    keep = []
    for entry in wanted:
        if not entry:
            continue
        path = Path(entry).resolve()
        if home in path.parents and ":" not in str(path):
            keep.append(str(path.relative_to(home)))
    for folder in writable:
        path = Path(folder).resolve()
        if home in path.parents and ":" not in str(path):
            keep.append("+" + str(path.relative_to(home)))
    return str(home), ":".join(dict.fromkeys(keep))


def run_steps(steps: Sequence[Step], work: str | os.PathLike[str], cwd: str | os.PathLike[str], *,
              timeout: float, allow_unsandboxed: bool = False, network: bool = False,
              writable: Sequence[str | os.PathLike[str]] = (), path_prepend: Sequence[str] = (),
              env: dict[str, str] | None = None, visible: Sequence[str | os.PathLike[str]] = ()
              ) -> tuple[str, list[StepRun]]:
    """Run ``steps`` in ``cwd`` (inside ``work``, which gets ``home/`` and ``tmp/``), confined
    when possible; the confinement used and one :class:`StepRun` per step. ``timeout`` bounds the
    whole command: a step cut off has ``returncode None`` and later steps do not run.

    For building an environment (not for running tests): ``network`` keeps the network,
    ``writable`` folders stay writable besides ``work``, ``path_prepend`` goes before ``PATH``
    and ``env`` adds variables (``PIP_CACHE_DIR``, say). ``visible``: folders inside the hidden home
    folder the command needs (an environment, its base interpreter), read-only unless writable."""
    work = Path(work).resolve()
    for sub in ("home", "tmp"):
        (work / sub).mkdir(exist_ok=True)
    how = confinement()
    if how == "none" and not allow_unsandboxed:
        raise ExecutionError("cannot confine the test run on this machine (user namespaces via "
                             "`unshare` are not available); pass --allow-unsandboxed to run the "
                             "benchmark's test commands without confinement")
    if how == "none":
        _protect_parent()
    extra = ":".join(str(Path(w).resolve()) for w in writable)
    deadline = time.monotonic() + timeout
    runs: list[StepRun] = []
    for step in steps:
        full = {**_base_env(work), **(env or {}), **dict(step.env)}
        if path_prepend:
            full["PATH"] = os.pathsep.join([*path_prepend, full["PATH"]])
        if how == "namespaces":
            argv = [*(_unshare(network) or []), "sh", "-c", _CONFINE, "sh", str(work),
                    *_hidden_home(work, [*visible, *path_prepend], writable), str(Path(cwd).resolve()), extra, "env", "-i", *(f"{k}={v}" for k, v in full.items()),
                    *step.argv]
        else:
            argv = list(step.argv)
        runs.append(_run_one(step, argv, full, Path(cwd), deadline))
        if runs[-1].returncode is None:
            break
    return how, runs


def _protect_parent() -> None:
    """Before an unsandboxed step: this process's environment out of reach of the step (which
    runs as the same user and could read ``/proc/<pid>/environ``, where the API keys are).

    Every variable is moved to the heap (``putenv``: the process and its libraries see the same
    values) and the block the kernel shows as ``/proc/<pid>/environ`` is zeroed; the process is made
    non-dumpable too (its memory unreadable to other non-root processes). Linux only; elsewhere
    nothing changes."""
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        start, end = int(fields[50 - 3]), int(fields[51 - 3])   # env_start, env_end (proc(5))
    except (OSError, IndexError, ValueError):
        return
    for key, value in os.environ.items():
        os.putenv(key, value)
    if 0 < start < end:
        ctypes.memset(start, 0, end - start)
    try:
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)   # PR_SET_DUMPABLE = 4
    except (OSError, AttributeError):
        pass


class _Tail:
    """A step's output, bounded: the first and the last ``keep`` bytes, and how much was cut."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.head = bytearray()
        self.tail = bytearray()
        self.cut = 0

    def add(self, chunk: bytes) -> None:
        room = self.keep - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk
        if len(self.tail) > self.keep:
            drop = len(self.tail) - self.keep
            del self.tail[:drop]
            self.cut += drop

    def text(self) -> str:
        middle = f"\n[... {self.cut} bytes of output cut ...]\n".encode() if self.cut else b""
        return bytes(self.head + middle + self.tail).decode("utf-8", "replace")


def _drain(stream: IO[bytes], into: _Tail) -> None:
    while True:
        chunk = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
        if not chunk:
            return
        into.add(chunk)


def _run_one(step: Step, argv: list[str], env: dict[str, str], cwd: Path, deadline: float) -> StepRun:
    t0 = time.monotonic()
    left = deadline - t0
    if left <= 0:
        return StepRun(step, None, "", 0.0)
    try:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as exc:
        return StepRun(step, 127, f"{step.argv[0]}: {exc.strerror or exc}", 0.0)
    out = _Tail(OUTPUT_KEEP)
    reader = threading.Thread(target=_drain, args=(proc.stdout, out), daemon=True)
    reader.start()
    code: int | None
    try:
        code = proc.wait(timeout=left)
    except subprocess.TimeoutExpired:
        code = None
    # the step is over (or out of time): nothing it started may keep writing
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if code is None:
        proc.wait()
    reader.join(timeout=10)
    if proc.stdout is not None:
        proc.stdout.close()
    return StepRun(step, code, out.text(), round(time.monotonic() - t0, 3))
