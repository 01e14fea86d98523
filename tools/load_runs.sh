#!/usr/bin/env bash
# Run the whole test suite several times in a row on one commit with two CPU-bound processes
# beside it (issue 25: every test deterministic, whatever the scheduling).
#
#   tools/load_runs.sh [COMMIT] [RUNS]      (defaults: HEAD, 5)
#
# The commit is cloned into $LOADRUN_DIR/<short commit>/main (default /tmp/loadrun) with
# ../shared linked to this checkout's ../shared (the tests read ../shared/data) and .venv linked
# to this checkout's .venv. The tests run as `python3 dev.py test -q -rs` runs them (CI=true,
# QT_QPA_PLATFORM=offscreen) but with pytest called directly: dev.py would lint first and could
# reinstall the project into the shared .venv when the commit's pyproject.toml differs.
# PYTHONPATH puts the clone first, before the editable install of this checkout.
#
# Everything (the suite and both hogs) runs under `nice -n 10`, so the suite and the hogs
# compete equally for the CPUs. Each run's summary line, duration and failures go to
# <dir>/state.txt; each run's whole output to <dir>/run-<i>.log. The hogs are killed on exit.
set -uo pipefail

SRC="$(cd "$(dirname "$0")/.." && pwd)"
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
ln -sfn "$SRC/.venv" "$CLONE/.venv"

HOGS=()
cleanup() {
    for pid in "${HOGS[@]}"; do kill "$pid" 2>/dev/null; done
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
            CI=true QT_QPA_PLATFORM=offscreen PYTHONPATH="$CLONE" \
                nice -n 10 .venv/bin/python -m pytest -q -rs -p no:cacheprovider --basetemp="$BASE/t$i"
    ) >"$log" 2>&1
    rc=$?
    secs=$(($(date +%s) - start))
    summary="$(grep -E '^=+ .*(passed|failed|error).* in [0-9.]+s' "$log" | tail -1)"
    [ "$rc" -eq 0 ] && clean=$((clean + 1))
    {
        echo "$(date -u +%FT%TZ) run $i/$RUNS commit $SHORT rc=$rc ${secs}s clean=$clean ${summary:-<no summary>}"
        grep -E '^(FAILED|ERROR) ' "$log" | sed 's/^/    /'
    } >>"$STATE"
    rm -rf "$BASE/t$i"
done
echo "$(date -u +%FT%TZ) commit $SHORT: $clean of $RUNS runs clean" >>"$STATE"
