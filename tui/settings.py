"""The dashboard's remembered settings: the theme picked in the command palette.

One small JSON file, ``$XDG_CONFIG_HOME/tcsexam/config.json`` (``~/.config/tcsexam/config.json``
when XDG_CONFIG_HOME is unset, empty or relative, as the XDG base-directory rule says), holding
``{"theme": NAME}``. It is written atomically (scoring.safety.outputs.write_atomic); a file that cannot be
read, is not such an object (nested too deeply, a number too long to read) or names a theme the
dashboard does not have is ignored with a message, never an exception. An empty or relative HOME
is no home: without a usable XDG_CONFIG_HOME nothing is read or saved (docs/dashboard.md).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

NO_HOME = "no folder for settings: HOME is empty or not an absolute path, and XDG_CONFIG_HOME is not set"


def user_folder(variable: str, fallback: str) -> Path | None:
    """An XDG base directory's tcsexam folder: $``variable``/tcsexam when that is an absolute path, else
    $HOME/``fallback``/tcsexam; None when there is no home (an empty HOME would put the files in /, a
    relative one in the current folder)."""
    base = os.environ.get(variable, "")
    if base and os.path.isabs(base):
        return Path(base) / "tcsexam"
    home = os.environ.get("HOME")
    if home is None:  # unset: the password database's home, as Path.home() finds it
        try:
            home = str(Path.home())
        except RuntimeError:
            return None
    if not os.path.isabs(home):
        return None
    return Path(home) / fallback / "tcsexam"


def config_path() -> Path | None:
    """Where the dashboard's settings live (XDG_CONFIG_HOME, else ~/.config); None without a home."""
    folder = user_folder("XDG_CONFIG_HOME", ".config")
    return None if folder is None else folder / "config.json"


def read_theme(themes) -> tuple[str | None, str | None]:
    """(the remembered theme, None), (None, None) when nothing is remembered, or (None, why the file
    was ignored: naming the file and the field). ``themes``: the names the app can show."""
    path = config_path()
    if path is None:
        return None, None
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"{path}: cannot read it: {exc.strerror or exc}"
    if not stat.S_ISREG(info.st_mode):
        return None, f"{path}: not a regular file"
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except OSError as exc:
        return None, f"{path}: cannot read it: {exc.strerror or exc}"
    except UnicodeDecodeError as exc:
        return None, f"{path}: not UTF-8 (byte {exc.start})"
    except json.JSONDecodeError as exc:
        return None, f"{path}: line {exc.lineno} column {exc.colno}: not JSON: {exc.msg}"
    except RecursionError:
        return None, f"{path}: not JSON that can be read: nested too deeply"
    except ValueError as exc:  # an integer longer than Python reads (4,300 digits)
        return None, f"{path}: not JSON that can be read: a number too long ({str(exc).split(';')[0]})"
    if not isinstance(data, dict):
        return None, f"{path}: not a JSON object"
    if "theme" not in data:
        return None, None
    theme = data["theme"]
    if not isinstance(theme, str):
        return None, f"{path}: field 'theme': not a string"
    if theme not in themes:
        return None, f"{path}: field 'theme': unknown theme {theme!r}"
    return theme, None


def save_theme(theme: str) -> str | None:
    """Remember ``theme``: write {"theme": NAME} atomically; None, or why it could not be written."""
    from tcsexam.scoring.errors import InputError
    from tcsexam.scoring.safety.outputs import write_atomic

    path = config_path()
    if path is None:
        return NO_HOME
    try:
        write_atomic(path, (json.dumps({"theme": theme}, ensure_ascii=False) + "\n").encode("utf-8"))
    except (OSError, InputError) as exc:  # InputError: a FIFO, or a file of several hard links (docs/safety.md)
        return str(exc)
    return None
