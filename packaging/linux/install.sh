#!/bin/sh
# Install this desktop-mt bundle folder for the current user (or system-wide with sudo):
#
#   ./install.sh                 # copies the folder to ~/.local/opt/desktop-mt
#   sudo ./install.sh /opt       # copies it to /opt/desktop-mt (read-only for users: fine)
#
# Adds the menu entry (desktop-mt.desktop) and the icon, and a `desktop-mt` link in
# ~/.local/bin (or /usr/local/bin). Settings, logs and user models are never written here:
# they live in ~/.config/desktop-mt, ~/.local/state/desktop-mt/log, ~/.local/share/desktop-mt.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" = 0 ]; then
    base=${1:-/opt}; share=/usr/local/share; bin=/usr/local/bin
else
    base=${1:-$HOME/.local/opt}; share=${XDG_DATA_HOME:-$HOME/.local/share}; bin=$HOME/.local/bin
fi
dest=$base/desktop-mt
if [ "$here" != "$dest" ]; then
    mkdir -p "$base"
    rm -rf "$dest.new"
    cp -a "$here" "$dest.new"
    rm -rf "$dest"
    mv "$dest.new" "$dest"
fi
mkdir -p "$share/applications" "$share/icons/hicolor/256x256/apps" "$bin"
sed -e "s|^Exec=.*|Exec=$dest/desktop-mt|" -e "s|^TryExec=.*|TryExec=$dest/desktop-mt|" \
    "$dest/desktop-mt.desktop" > "$share/applications/desktop-mt.desktop"
cp "$dest/desktop-mt.png" "$share/icons/hicolor/256x256/apps/desktop-mt.png"
ln -sf "$dest/desktop-mt" "$bin/desktop-mt"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$share/applications" || true
echo "installed $dest; run: desktop-mt   (or desktop-mt self-test)"
