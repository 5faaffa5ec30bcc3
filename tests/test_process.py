"""The machine the tool runs on (docs/safety.md#the-machine-the-tool-runs-on): a closed pipe keeps a
non-zero exit code, printing never fails in any locale, low memory is a clear error and never a spin
in the BLAS import. These run the console script in a process of its own."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcsexam.scoring.safety.terminal import say
from tests.support.waiting import tries

ROOT = Path(__file__).resolve().parents[1]
NAME = "modèle-日本"  # not in ISO-8859-1


def tcsexam(*args: str, stdout=subprocess.PIPE, env: dict | None = None, preexec_fn=None, timeout: float = 120):
    """The console script (``tui.cli.entry``) in a process of its own: (exit code, stdout, stderr)."""
    proc = subprocess.run(
        [sys.executable, "-m", "tcsexam.tui.cli", *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
        preexec_fn=preexec_fn,
        timeout=timeout,
        cwd=ROOT,
    )
    return proc.returncode, (proc.stdout or b"").decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


def closed_pipe(*args: str) -> tuple[int, str]:
    """Run with standard output a pipe whose reader is already gone (``| true``, ``| head`` done)."""
    read, write = os.pipe()
    os.close(read)
    try:
        code, _, err = tcsexam(*args, stdout=write)
    finally:
        os.close(write)
    return code, err


@pytest.fixture(scope="module")
def scored_demo(tmp_path_factory) -> Path:
    from tcsexam.scoring.pipeline.benchmark import demo_run

    run = tmp_path_factory.mktemp("pipe") / "demo"
    shutil.copytree(demo_run(), run)
    code, _, err = tcsexam("score", str(run), "--output", str(run / "index.json"))
    assert code == 3, err
    return run


# --- a closed pipe ---------------------------------------------------------------------------


def test_a_closed_pipe_never_turns_an_exit_code_into_0(scored_demo):
    # validate exits 3 (incomplete) when its findings are read; a reader that went away is 141, as
    # for a program SIGPIPE stopped (`set -o pipefail; tcsexam validate run | head -2`)
    assert tcsexam("validate", str(scored_demo))[0] == 3
    code, err = closed_pipe("validate", str(scored_demo))
    assert code == 141
    assert "Traceback" not in err and "Exception ignored" not in err and "internal error" not in err


@pytest.mark.parametrize(
    "command",
    [
        ["score", "{run}", "--output", "-"],
        ["table", "{run}/index.json"],
        ["diff", "{run}/index.json", "{run}/index.json"],
        ["compare", "{run}", "--models", "atlas-70b", "borealis-8x22b"],
        ["plan", "{run}"],
        ["schema", "index"],
        ["tau2", "{tau2}"],
    ],
    ids=lambda c: c[0],
)
def test_no_command_exits_0_into_a_closed_pipe(scored_demo, command):
    from tests.support.runs import TAU2_DATA

    tau2 = TAU2_DATA / "qwen2.5-7b_airline_default_gpt-4.1-2025-04-14_1trials.json"
    code, err = closed_pipe(*(a.format(run=scored_demo, tau2=tau2) for a in command))
    assert code == 141, err
    assert "Traceback" not in err and "internal error" not in err


def test_verify_of_an_edited_index_into_a_closed_pipe_is_not_verified(scored_demo, tmp_path):
    edited = tmp_path / "index.json"
    document = json.loads((scored_demo / "index.json").read_text(encoding="utf-8"))
    document["models"]["atlas-70b"]["index"] += 1
    edited.write_text(json.dumps(document), encoding="utf-8")
    assert tcsexam("verify", str(edited), str(scored_demo))[0] == 1
    code, err = closed_pipe("verify", str(edited), str(scored_demo))  # `verify … | true`
    assert code == 141 and "Traceback" not in err


def test_output_to_a_closed_standard_output_is_a_clear_error(scored_demo, tmp_path):
    # `score --output - >&-`: no standard output at all
    code, _, err = tcsexam("score", str(scored_demo), "--output", "-", stdout=subprocess.DEVNULL, preexec_fn=close_fd_1)
    assert code == 1
    assert "--output -: standard output is closed" in err and "internal error" not in err


def close_fd_1() -> None:
    os.close(1)


def close_fd_2() -> None:
    os.close(2)


def test_with_standard_error_closed_its_lines_never_land_in_the_document(scored_demo):
    # `score --output - 2>&-`: the summary and the sample's notice go nowhere, not into the JSON
    code, out, _ = tcsexam("score", str(scored_demo), "--output", "-", preexec_fn=close_fd_2)
    assert code == 3
    assert json.loads(out)["status"] == "incomplete"


# --- every locale ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def foreign_run(tmp_path_factory) -> Path:
    """The demo with atlas-70b renamed to a name ISO-8859-1 cannot hold, scored, and one of its
    solver scores emptied (for fill to print)."""
    from tcsexam.scoring.pipeline.benchmark import demo_run

    run = tmp_path_factory.mktemp("locale") / "demo"
    shutil.copytree(demo_run(), run)
    for name in ("attempts.csv", "cohort.json"):
        path = run / name
        path.write_text(path.read_text(encoding="utf-8").replace("atlas-70b", NAME), encoding="utf-8")
    (run / "records" / "atlas-70b").rename(run / "records" / NAME)
    assert tcsexam("score", str(run), "--output", str(run / "index.json"))[0] == 3
    return run


@pytest.mark.parametrize("command", ["validate", "diff", "fill", "verify"])
def test_printing_never_fails_in_a_latin_1_locale(foreign_run, tmp_path, command):
    run = foreign_run
    edited = tmp_path / "index.json"
    document = json.loads((run / "index.json").read_text(encoding="utf-8"))
    document["models"][NAME]["index"] += 1
    edited.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    fill_run = tmp_path / "fill"
    shutil.copytree(run, fill_run)
    table = fill_run / "attempts.csv"
    lines = table.read_text(encoding="utf-8").splitlines(keepends=True)
    k = next(i for i, line in enumerate(lines) if line.startswith(f"{NAME},solver,"))
    cells = lines[k].split(",")
    cells[4], cells[6] = "", "missing"  # score, score_status: fill computes the score again from the records
    lines[k] = ",".join(cells)
    table.write_text("".join(lines), encoding="utf-8")
    args, expected = {
        "validate": (["validate", str(run)], 3),
        "diff": (["diff", str(run / "index.json"), str(edited)], 0),
        "fill": (["fill", str(fill_run), "--dry-run"], 0),
        "verify": (["verify", str(edited), str(run)], 1),
    }[command]
    code, out, err = tcsexam(*args, env={"PYTHONIOENCODING": "latin-1", "LC_ALL": "C"})
    assert "internal error" not in err and code == expected, err
    assert "mod\ufffdle-\\u65e5\\u672c" in out  # è in latin-1 (read back here as UTF-8); 日本 escaped


@settings(max_examples=200, deadline=None)
@given(st.text(), st.sampled_from(["latin-1", "ascii", "cp1252", "utf-8"]))
def test_say_never_fails_whatever_the_stream_encoding(text, encoding):
    import io

    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding=encoding, errors="strict")
    say(text, stream)
    stream.flush()
    raw.getvalue().decode(encoding)


def test_the_console_script_makes_its_streams_escape_what_they_cannot_encode():
    # a print that does not go through say (any command's own) cannot fail either
    code = (
        "import sys; from tcsexam.scoring.commands.process import prepare_process; prepare_process(); "
        "print('日本'); print('日本', file=sys.stderr)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "latin-1"},
        cwd=ROOT,
    )
    assert proc.returncode == 0 and proc.stdout == b"\\u65e5\\u672c\n" and proc.stderr == b"\\u65e5\\u672c\n"


# --- BLAS threads and low memory -------------------------------------------------------------


def test_blas_threads_are_capped_only_where_the_user_did_not_choose(monkeypatch):
    from tcsexam.scoring.commands.process import BLAS_THREAD_VARIABLES, prepare_process

    for name in BLAS_THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    prepare_process()
    assert {name: os.environ[name] for name in BLAS_THREAD_VARIABLES} == {
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "4",
        "MKL_NUM_THREADS": "1",
    }


def test_the_console_script_module_does_not_import_numpy():
    # the caps are set in entry(): numpy must not be loaded before it runs
    proc = subprocess.run(
        [sys.executable, "-c", "import sys, tui.cli; print('numpy' in sys.modules)"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdout.strip() == "False"


def limit_address_space(kib: int):
    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (kib * 1024, resource.RLIM_INFINITY))

    return limit


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ulimit -v as Linux applies it")
@pytest.mark.parametrize("kib", [120_000, 160_000])
def test_too_little_address_space_is_a_clear_error_not_a_spin(scored_demo, kib):
    # under ulimit -v 160000 validate spun for minutes in scipy's OpenBLAS (it retries its buffer forever)
    code, _, err = tcsexam("validate", str(scored_demo), preexec_fn=limit_address_space(kib))
    assert code == 1
    assert "memory ran out" in err and f"(ulimit -v {kib})" in err and "MiB to start" in err
    assert "internal error" not in err and "Traceback" not in err


def test_memory_running_out_during_a_command_says_so(cli, monkeypatch, demo_copy, tmp_path):
    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr("tcsexam.scoring.pipeline.index.evaluate_run", exhausted)  # what score_run calls
    out = tmp_path / "index.json"
    code, _, err = cli("score", str(demo_copy), "--output", str(out))
    assert code == 1 and not out.exists()
    assert err.splitlines()[-1].startswith("tcsexam: memory ran out")
    assert "MiB" in err and "internal error" not in err and "please report" not in err


# --- the end of the dashboard ----------------------------------------------------------------

QUIT_WHILE_WORKING = """
import sys, threading, time
import tcsexam.tui.app as app_module
from tcsexam.tui.writes import WRITING
from tcsexam.tui.cli import entry

out = sys.argv[1]

class App:  # the dashboard, quit while its thread still works: one writing a cache file, one that never ends
    return_code = 0

    def __init__(self, config, **kwargs):
        pass

    def run(self, loop=None):
        held = threading.Event()

        def write():
            with WRITING:
                held.set()
                time.sleep(0.5)
                with open(out, "w") as fh:
                    fh.write("written whole")

        threading.Thread(target=write).start()
        threading.Thread(target=threading.Event().wait).start()
        held.wait()

app_module.create_app = App
sys.argv = ["tcsexam", "tui", sys.argv[2]]
entry()
"""


def test_the_dashboard_ends_without_waiting_for_its_threads_but_finishes_a_cache_write(tmp_path):
    """q gives the prompt back while a check of the inputs still runs (docs/performance.md#quitting): the
    process does not wait for the dashboard's threads, only for a cache file being written."""
    from tcsexam.scoring.pipeline.benchmark import demo_run

    out = tmp_path / "cache-file"
    proc = subprocess.run(
        [sys.executable, "-c", QUIT_WHILE_WORKING, str(out), str(demo_run())],
        capture_output=True,
        timeout=120,  # a process that waits for the thread that never ends fails here
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert out.read_text() == "written whole"


QUIT_DURING_A_LOAD = """
import sys, threading
import tcsexam.tui.workers as workers
from tcsexam.tui.cli import entry

workers.load_state = lambda *args, **kwargs: threading.Event().wait()  # a load that never ends
sys.argv = ["tcsexam", "tui", sys.argv[1]]
entry()
"""


@pytest.mark.dashboard
def test_q_ends_the_dashboard_while_a_load_in_its_thread_never_ends(demo_copy):
    """The real console script in a terminal: q while the run is still being read in the dashboard's
    own thread (as a reopen's check is) ends the process (docs/performance.md#quitting)."""
    import pty
    import select
    import signal

    pid, fd = pty.fork()
    if pid == 0:  # the child: the dashboard
        os.chdir(ROOT)
        os.environ["TERM"] = "xterm-256color"
        os.execv(sys.executable, [sys.executable, "-c", QUIT_DURING_A_LOAD, str(demo_copy)])
    seen, status = bytearray(), None
    try:
        for _ in tries(lambda: f"the app taking the screen (it wrote {bytes(seen[-2000:])!r})", 60):
            if b"\x1b[?1049h" in seen:
                break
            if select.select([fd], [], [], 0.1)[0]:
                seen.extend(os.read(fd, 65536))
        os.write(fd, b"q")
        for _ in tries("the process ended after q", 60):  # a process that waits for the load hangs
            if select.select([fd], [], [], 0.1)[0]:
                with contextlib.suppress(OSError):  # the terminal closed as the process ended
                    os.read(fd, 65536)
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                status = os.waitstatus_to_exitcode(code)
                break
    finally:
        if status is None:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
    assert status == 0


CTRL_C_WHILE_LOADING = """
import sys
import tcsexam.tui.cli as cli
print("loaded" if "tcsexam.scoring.commands.main" in sys.modules else "light", file=sys.stderr)
import tcsexam.scoring.commands.process as process

def ctrl_c():
    raise KeyboardInterrupt  # as Python's own SIGINT handler raises it

process.prepare_process = ctrl_c
sys.argv = ["tcsexam", "--version"]
cli.entry()
"""


def test_ctrl_c_while_the_commands_load_is_said_not_a_traceback(tmp_path):
    """The console script imports tui/cli.py before ``entry`` runs: the module loads no command, so a
    Ctrl-C that early lands in ``entry``, which says it as any command does, exit 130 (a review saw a
    traceback for a Ctrl-C in the first 50 ms)."""
    proc = subprocess.run(
        [sys.executable, "-c", CTRL_C_WHILE_LOADING], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.splitlines()[0] == "light"
    assert "interrupted (SIGINT): every file is whole" in proc.stderr and "Traceback" not in proc.stderr


def test_ctrl_c_while_the_headless_command_line_is_read_is_said_too(monkeypatch, capsys):
    """``python -m tcsexam.scoring`` reads its arguments before ``run`` takes over: a Ctrl-C then is said as
    one during a command (exit 130), not a traceback."""
    from tcsexam.scoring.commands import main as main_module

    def ctrl_c(argv=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(main_module, "prepare_process", lambda: None)  # this test process's streams stay as they are
    monkeypatch.setattr(main_module, "build_parser", ctrl_c)
    assert main_module.main(["--version"]) == 130
    assert "interrupted (SIGINT): every file is whole" in capsys.readouterr().err


CTRL_C_AFTER_THE_WORK = """
import os, signal, sys, time
import tcsexam.tui.cli as cli

def main():
    print("index.json written to x.json")
    return 3

real_exit = sys.exit

def exit_after_a_ctrl_c(code):  # the Ctrl-C lands between the command's last line and the process's end
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.2)
    real_exit(code)

cli.main = main
sys.exit = exit_after_a_ctrl_c
cli.entry()
"""


def test_a_ctrl_c_once_the_command_is_done_keeps_its_exit_code():
    """A Ctrl-C just after "written to ..." made exit 130 with no word of it (a review): the command was
    done, its file whole; the exit code stays the command's."""
    proc = subprocess.run(
        [sys.executable, "-c", CTRL_C_AFTER_THE_WORK], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (3, "index.json written to x.json\n", "")
