#!/usr/bin/env bash
# Runs a command against a real Secret Service: gnome-keyring in a private D-Bus session with a
# fresh HOME, so the user's own keyring is never touched and every run starts empty.
#   bash test/support/withKeyring.sh <command> [args...]
set -uo pipefail

for tool in dbus-run-session gnome-keyring-daemon; do
  if ! command -v "$tool" >/dev/null; then
    echo "test/support/withKeyring.sh: $tool is missing (install dbus and gnome-keyring; .ci/run does)" >&2
    exit 1
  fi
done

temp_home="$(mktemp -d -t airlock-keychain-XXXXXX)"
trap 'rm -rf "$temp_home"' EXIT
export HOME="$temp_home"
export XDG_DATA_HOME="$temp_home/.local/share"
export XDG_CONFIG_HOME="$temp_home/.config"
export XDG_CACHE_HOME="$temp_home/.cache"
export XDG_RUNTIME_DIR="$temp_home/runtime"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

dbus-run-session -- bash -c 'printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; "$@"' bash "$@"
exit $?
