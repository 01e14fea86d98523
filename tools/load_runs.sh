#!/usr/bin/env bash
# Run the whole test suite several times in a row on one commit with two CPU-bound processes
# beside it (issue 25: every test deterministic, whatever the scheduling).
#
#   tools/load_runs.sh [COMMIT] [RUNS]      (defaults: HEAD, 5)
#
# The commit is cloned into $LOADRUN_DIR/<short commit>/main (default /tmp/loadrun) with
# ../shared linked to this checkout's ../shared (the tests read ../shared/data) and .venv linked
# to a venv that uses this checkout's .venv packages (see below). The tests run as
# `python3 dev.py test -q -rs` runs them (CI=true, QT_QPA_PLATFORM=offscreen) but with pytest
# called directly: dev.py would lint first and could reinstall the project.
#
# Everything (the suite and both hogs) runs under `nice -n 10`, so the suite and the hogs
# compete equally for the CPUs. Each run's summary line, duration and failures go to
# <dir>/state.txt; each run's whole output to <dir>/run-<i>.log. The hogs are killed on exit.
set -uo pipefail

SRC="${LOADRUN_SRC:-$(cd "$(dirname "$0")/.." && pwd)}"
# Run from a copy: bash reads a script as it goes, and this one may be edited while it loops.
if [ -z "${LOADRUN_SRC:-}" ]; then
    copy="$(mktemp /tmp/load_runs.XXXXXX.sh)"
    cp "$0" "$copy"
    LOADRUN_SRC="$SRC" exec bash "$copy" "$@"
fi
COMMIT="$(git -C "$SRC" rev-parse "${1:-HEAD}")"
RUNS="${2:-5}"
SHORT="${COMMIT:0:8}"
BASE="${LOADRUN_DIR:-/tmp/loadrun}/$SHORT"
CLONE="$BASE/main"
STATE="$BASE/state.txt"

mkdir -p "$BASE"
if [ ! -d "$CLONE/.git" ]; then
    git clone -q --no-checkout "$SRC" "$CLONE" || exit 1
fi
git -C "$CLONE" -c advice.detachedHead=false checkout -q "$COMMIT" || exit 1
ln -sfn "$(cd "$SRC/.." && pwd)/shared" "$BASE/shared"
# A venv of its own whose site-packages reach this checkout's .venv through a path line, with
# the clone installed editable (no dependencies): the clone's code is what every test and every
# subprocess imports, and the suite runs without PYTHONPATH, as in CI.
VENV="$BASE/venv"
if [ ! -x "$VENV/bin/python" ]; then
    "$SRC/.venv/bin/python" -m venv --without-pip "$VENV" || exit 1
    site="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    main_site="$("$SRC/.venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    echo "$main_site" >"$site/_main_venv.pth"
    cp "$main_site/distutils-precedence.pth" "$site/" 2>/dev/null
    (cd "$CLONE" && "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps \
        --no-build-isolation -e .) || exit 1
fi
ln -sfn "$VENV" "$CLONE/.venv"

HOGS=()
SUITE=
cleanup() {
    for pid in "${HOGS[@]}" $SUITE; do kill "$pid" 2>/dev/null; done
    echo "$(date -u +%FT%TZ) loop ended" >>"$STATE"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
for _ in 1 2; do
    nice -n 10 python3 -c 'while True: pass' &
    HOGS+=("$!")
done

echo "$(date -u +%FT%TZ) commit $COMMIT: $RUNS runs, hogs ${HOGS[*]}, $(nproc) CPUs" >>"$STATE"
clean=0
for i in $(seq 1 "$RUNS"); do
    log="$BASE/run-$i.log"
    start=$(date +%s)
    (
        cd "$CLONE" &&
            exec env CI=true QT_QPA_PLATFORM=offscreen nice -n 10 \
                .venv/bin/python -m pytest -q -rs -p no:cacheprovider --basetemp="$BASE/t$i"
    ) >"$log" 2>&1 &
    SUITE=$!
    wait "$SUITE"
    rc=$?
    SUITE=
    secs=$(($(date +%s) - start))
    summary="$(grep -E '(passed|failed|error).* in [0-9.]+s' "$log" | tail -1)"
    [ "$rc" -eq 0 ] && clean=$((clean + 1))
    {
        echo "$(date -u +%FT%TZ) run $i/$RUNS commit $SHORT rc=$rc ${secs}s clean=$clean ${summary:-<no summary>}"
        grep -E '^_{3,} .* _{3,}$|^E  +[A-Za-z]*(Error|Warning|Exception)' "$log" | sed 's/^/    /'
    } >>"$STATE"
    # A failed run's files (the apps' logs of the real-window tests...) are kept for diagnosis.
    [ "$rc" -eq 0 ] && rm -rf "$BASE/t$i"
done
echo "$(date -u +%FT%TZ) commit $SHORT: $clean of $RUNS runs clean" >>"$STATE"
