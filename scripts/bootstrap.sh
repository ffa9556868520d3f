#!/usr/bin/env bash
# bootstrap.sh — installs the Debian packages Tabula needs, only those that
# are missing (idempotent; silent when everything is there), then the npm
# packages of the browser tests.  Uses sudo when not root.  The Debian list
# lives in scripts/packages.txt, one package per line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mapfile -t wanted < <(grep -v '^\s*#' "$here/packages.txt" | awk 'NF {print $1}')
# Names that an installed package provides count as present (e.g. NodeSource's
# nodejs provides npm and conflicts with Debian's npm package).
provided=$(dpkg-query -W -f='${db:Status-Abbrev}|${Provides}\n' 2>/dev/null |
  awk -F'|' '$1 ~ /^ii/ && $2 != "" {print $2}' | tr ',' '\n' | sed 's/([^)]*)//g; s/ //g')
missing=()
for p in "${wanted[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" &&
     ! grep -qx -- "$p" <<<"$provided"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "bootstrap: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The browser tests' npm packages (package-lock.json at the top), installed
# with `npm ci` when node_modules is missing or older than the lock file.
# Never `playwright install`: the tests drive Debian's chromium.
top=$(dirname "$here")
if [ -f "$top/package-lock.json" ] && { [ ! -f "$top/node_modules/.package-lock.json" ] ||
   [ "$top/package-lock.json" -nt "$top/node_modules/.package-lock.json" ]; }; then
  echo "bootstrap: npm ci"
  (cd "$top" && npm ci --no-audit --no-fund --loglevel=error)
fi
