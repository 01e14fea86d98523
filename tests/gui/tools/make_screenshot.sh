#!/usr/bin/env bash
# Screenshot of the real window with a streamed translation, under Xvfb.
#   needs: apt-get install -y xvfb xdotool imagemagick fonts-noto-cjk
#   usage: tests/gui/tools/make_screenshot.sh [OUT.png] [--model DIR]
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT="${1:-docs/screenshot.png}"; shift || true
PY="${PYTHON:-.venv/bin/python}"
export DISPLAY=:97 QT_QPA_PLATFORM=xcb DESKTOP_MT_HOME="$(mktemp -d)"
Xvfb "$DISPLAY" -screen 0 1100x640x24 -nolisten tcp & XPID=$!
trap 'kill $APID 2>/dev/null || true; kill $XPID 2>/dev/null || true' EXIT
sleep 1
"$PY" -c "import sys; from desktop_mt.gui.app import main; sys.exit(main(sys.argv[1:]))" "$@" & APID=$!
WID=$(xdotool search --sync --name "desktop-mt" | head -1)
xdotool windowmove "$WID" 0 0 windowsize "$WID" 1100 640
sleep 4   # model load
xdotool windowactivate --sync "$WID" 2>/dev/null || xdotool windowfocus "$WID"
xdotool type --delay 15 "The weather is nice today, so we decided to walk to the old library."
xdotool key Return Return
xdotool type --delay 15 "Could you tell me where the nearest train station is?"
xdotool key ctrl+Return
sleep "${WAIT:-6}"  # let the translation stream in
import -window root "$OUT"
echo "wrote $OUT"
