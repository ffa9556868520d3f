#!/usr/bin/env bash
# run_install_test.sh [--destdir BUILD] — `make install PREFIX=<temporary
# directory>` (or, with --destdir, `meson install` of the built BUILD into a
# temporary staging directory, pkg-config reading it through
# PKG_CONFIG_SYSROOT_DIR: the `install` suite of meson test), then checks
# what a user gets there: the files (library with its soname, static library,
# header, tabula.pc, binary, man pages, web assets, the terminal's compiled
# catalogues, which the installed binary reads), the example program of
# examples/ built with pkg-config against the installed library only, and the
# Python package imported from the installed site directory.  Leaves nothing
# behind (the prefix is removed at exit; KEEP=1 keeps it).  Outputs are read
# into variables before grep, since with pipefail an early-exiting grep -q
# would fail the pipeline through SIGPIPE.
set -euo pipefail
cd "$(dirname "$0")/../.."
top=$(mktemp -d /tmp/tabula-prefix.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$top"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
PYTHON=${PYTHON:-/usr/bin/python3}

if [ "${1:-}" = --destdir ]; then
  meson install -C "$2" --no-rebuild --quiet --destdir "$top" >/dev/null
  prefix=$top$(meson introspect "$2" --buildoptions |
    "$PYTHON" -c 'import json, sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"][0])')
  export PKG_CONFIG_SYSROOT_DIR=$top
else
  prefix=$top
  make --no-print-directory install PREFIX="$prefix" >/dev/null
fi

pc=$(find "$prefix" -name tabula.pc -print -quit)
[ -n "$pc" ] || fail "no tabula.pc installed"
libdir=$(dirname "$(dirname "$pc")")
[ -e "$libdir/libtabula.a" ] || fail "no static library in $libdir"
soname=$(objdump -p "$libdir/libtabula.so" | awk '/SONAME/ {print $2}')
[ "$soname" = libtabula.so.0 ] || fail "soname is '$soname', not libtabula.so.0"
# only the public API is exported
exported=$(nm -D --defined-only "$libdir/libtabula.so" | awk '$2 == "T" {print $3}' | sort)
if grep -v '^tb_[a-z]' <<<"$exported"; then
  fail "libtabula.so exports symbols outside the public API (above)"
fi
# ... and exactly the functions the installed header declares TB_API
diff <(grep '^TB_API' "$prefix/include/tabula.h" | grep -o 'tb_[a-z0-9_]*(' | tr -d '(' | sort) \
     <(printf '%s\n' "$exported") \
  || fail "the exported functions differ from the header's TB_API declarations (above)"
for f in include/tabula.h bin/tabula share/man/man1/tabula.1 share/man/man3/libtabula.3 \
         share/tabula/web/index.html; do
  [ -e "$prefix/$f" ] || fail "missing $prefix/$f"
done
"$prefix/bin/tabula" --help >/dev/null || fail "installed tabula does not run"
# the terminal's catalogues (docs/translating.md): installed, and read from there
mo=$prefix/share/locale/es/LC_MESSAGES/tabula.mo
[ -e "$mo" ] || fail "missing $mo"
said=$(LANG=es_ES.UTF-8 TABULA_LOCALE_DIR="$prefix/share/locale" "$prefix/bin/tabula" play clans \
         --seats random,random --seed 1 --no-colour --record "$top/game.json" </dev/null)
[[ $said == "Clans, 2 jugadores"* ]] || fail "the installed tabula does not speak Spanish: ${said:0:200}"
if command -v man >/dev/null; then  # the pages render without troff warnings
  for page in "$prefix/share/man/man1/tabula.1" "$prefix/share/man/man3/libtabula.3"; do
    warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null) || fail "man cannot show $page"
    [ -z "$warnings" ] || fail "$page: $warnings"
  done
fi

# the example, against the installed library through pkg-config only
export PKG_CONFIG_PATH="$libdir/pkgconfig"
[ "$(pkg-config --modversion tabula)" = "$(sed -n 's/^#define TB_VERSION "\(.*\)"/\1/p' include/tabula.h)" ] \
  || fail "pkg-config version differs from TB_VERSION"
work=$(mktemp -d "$top/example.XXXXXX")
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror examples/random_games.c $(pkg-config --cflags --libs tabula) \
   -o "$work/random_games" || fail "the example does not build against the installed library"
out=$(LD_LIBRARY_PATH="$libdir" "$work/random_games" clans 50) || fail "the example failed: $out"
echo "$out"
grep -q "^clans: 50 random games" <<<"$out" || fail "unexpected example output"
linked=$(LD_LIBRARY_PATH="$libdir" ldd "$work/random_games")
grep -q "$libdir/libtabula.so.0" <<<"$linked" \
  || fail "the example is not linked to the installed libtabula.so.0: $linked"

# the Python package, from the installed site directory alone
site=$(find "$prefix" -type d -name tabula -path '*python*' -print -quit)
if [ -n "${TABULA_SKIP_PYTHON:-}" ]; then
  echo "python: skipped (TABULA_SKIP_PYTHON)"
else
  [ -n "$site" ] || fail "the Python package was not installed"
  (cd "$work" && PYTHONPATH=$(dirname "$site") "$PYTHON" -c '
import tabula
g = tabula.new_game("clans", players=3, seed=1)
while not g.is_over():
    g.play(g.legal()[0])
print("python: installed package plays a game; returns", g.returns())
') || fail "the installed Python package does not work"
fi
echo "install test passed"
