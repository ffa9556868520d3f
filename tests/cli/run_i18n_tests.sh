#!/usr/bin/env bash
# run_i18n_tests.sh TABULA SOURCE — the words made in C in another language
# (docs/translating.md): every msgid the C sources mark (N_, NP_, _; found
# with xgettext) is translated in every catalogue of po/LINGUAS (msgcmp);
# `tabula play clans` and `tabula replay` under LANG=es_ES.UTF-8 (a locale
# this machine need not have generated) speak Spanish from the first line to
# the result, and none of their words is an English word of the catalogue;
# the language follows gettext's order (LANGUAGE unless the locale is C,
# then LC_ALL, LC_MESSAGES, LANG); without a catalogue, or in English, the
# words are exactly the English ones.
set -u
tabula=$(realpath "$1")
src=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }

# ---- the catalogues hold every C msgid ----
(cd "$src" && find src -name '*.c' | sort > "$tmp/files")
if (cd "$src" && xgettext --keyword=N_ --keyword=NP_:1,2 --keyword=_ --from-code=UTF-8 -L C \
      -o "$tmp/c.pot" -f "$tmp/files") 2>"$tmp/xgettext.err"; then
  count=$(grep -c '^msgid ' "$tmp/c.pot")
  [ "$count" -gt 200 ] && ok "xgettext finds the C msgids ($count)" || bad "xgettext found only $count C msgids"
else
  bad "xgettext fails: $(cat "$tmp/xgettext.err")"
fi
for lang in $(grep -v '^#' "$src/po/LINGUAS"); do
  if msgcmp "$src/po/$lang.po" "$tmp/c.pot" >"$tmp/msgcmp.out" 2>&1; then
    ok "po/$lang.po translates every C msgid"
  else
    bad "po/$lang.po lacks C msgids: $(grep -c 'not defined' "$tmp/msgcmp.out") of them, e.g. $(grep -m3 -A1 'not defined' "$tmp/msgcmp.out" | tr '\n' ' ')"
  fi
done

# ---- English words of the catalogue, for finding them in Spanish output ----
# Words of 3 letters or more of every msgid, less those any msgstr uses too
# (words both languages share: "legal", "final", "civil") and the words the
# player types or the program names, which stay as they are in every
# language: the notation's keywords (docs/notation.md) and the agents.
/usr/bin/python3 - "$src/po/es.po" > "$tmp/english-words" <<'PY'
import re, sys
text = open(sys.argv[1], encoding='utf-8').read()
ids, strs = [], []
for m in re.finditer(r'^(msgid(?:_plural)?|msgstr(?:\[\d\])?) ((?:".*"\n?)+)', text, re.M):
    value = ''.join(re.findall(r'"(.*)"', m.group(2)))
    (ids if m.group(1).startswith('msgid') else strs).append(value)
def words(s):
    s = re.sub(r'\{[^{}]*\}', ' ', s.replace('\\n', ' '))
    return {w.lower() for w in re.findall(r"[A-Za-z]{3,}", s)}
english = set().union(*map(words, ids)) - set().union(*map(words, strs))
typed = {'village', 'lot', 'build', 'workers', 'own', 'neutral', 'stop', 'castle', 'draw',
         'banner', 'sell', 'yes', 'stack', 'exchange', 'travel', 'upgrade', 'demolish',
         'populate', 'renovate', 'end', 'discard', 'pay', 'downsize',
         'random', 'greedy', 'ismcts', 'easy', 'normal', 'hard', 'tabula', 'clans', 'replay'}
print('\n'.join(sorted(english - typed)))
PY
english_in() { # prints the catalogue's English words found in file $1
  /usr/bin/python3 - "$tmp/english-words" "$1" <<'PY'
import re, sys
english = set(open(sys.argv[1]).read().split())
text = open(sys.argv[2], encoding='utf-8').read()
found = sorted({w for w in re.findall(r"[A-Za-z]{3,}", re.sub(r'\S*\.json\S*', ' ', text)) if w.lower() in english})
print(' '.join(found))
PY
}
[ "$(wc -l < "$tmp/english-words")" -gt 150 ] && ok "the catalogue gives $(wc -l < "$tmp/english-words") English words to look for" \
  || bad "too few English words to look for"

# ---- tabula play in Spanish, a whole game ----
cd "$tmp"
{ printf 'deshacer\nayuda\nlegal 1\npista\ntablero\ntotales\ntotales\n1\ndeshacer\n'; for i in $(seq 300); do echo 1; done; echo salir; } > input
LANG=es_ES.UTF-8 LANGUAGE= LC_ALL= LC_MESSAGES= "$tabula" play clans --seats human,random --seed 7 \
  --no-colour --record game.json < input > play.out 2>&1
for want in 'Clans, 2 jugadores, semilla 7' 'eres el jugador 1, color secreto' 'Escribe una decisión' \
            'Tus mejores decisiones' 'Todavía no hay nada tuyo que deshacer' 'Juegas ' \
            'Jugador 2 mueve' 'Fin de la partida.' 'Partida guardada en game.json'; do
  grep -qF "$want" play.out && ok "play in Spanish says '$want'" || bad "play in Spanish never says '$want'"
done
grep -q 'Épocas' play.out && grep -q 'Marcadores' play.out && ok "the board's words are Spanish" \
  || bad "the board's words are not Spanish"
found=$(english_in play.out)
[ -z "$found" ] && ok "no English word of the catalogue in a whole game played in Spanish" \
  || bad "English words in the Spanish game: $found"

# ---- tabula replay in Spanish ----
printf 'n\nn\nb\ne\nx\nq\n' | LANG=es_ES.UTF-8 "$tabula" replay game.json --no-colour > replay.out 2>&1
for want in 'Clans, 2 jugadores:' 'jugador 1 tú (persona)' 'Inicio de la partida (' 'Decisión 1 de ' \
            'Decisión 2 de ' 'Resultado: tú ' "'x' no es una orden de la repetición" '[n] siguiente'; do
  grep -qF "$want" replay.out && ok "replay in Spanish says '$want'" || bad "replay in Spanish never says '$want'"
done
found=$(english_in replay.out)
[ -z "$found" ] && ok "no English word of the catalogue in the Spanish replay" \
  || bad "English words in the Spanish replay: $found"

# ---- which language: gettext's order ----
first() { env -i PATH="$PATH" "$@" "$tabula" play clans --seats random,random --seed 3 --no-colour \
            --record r.json </dev/null 2>&1 | head -1; }
check_lang() { # $1 what, $2 expected start of the first line, then the environment
  local what=$1 want=$2; shift 2
  local got; got=$(first "$@")
  [[ $got == "$want"* ]] && ok "$what" || bad "$what: '$got'"
}
check_lang "LANG=es_ES.UTF-8 speaks Spanish" 'Clans, 2 jugadores' LANG=es_ES.UTF-8
check_lang "LANG=es (no country) speaks Spanish" 'Clans, 2 jugadores' LANG=es
check_lang "LC_ALL wins over LANG" 'Clans, 2 jugadores' LC_ALL=es_ES.UTF-8 LANG=en_GB.UTF-8
check_lang "LC_MESSAGES wins over LANG" 'Clans, 2 jugadores' LC_MESSAGES=es_ES.UTF-8 LANG=en_GB.UTF-8
check_lang "LC_ALL wins over LC_MESSAGES" 'Clans, 2 players' LC_ALL=en_GB.UTF-8 LC_MESSAGES=es_ES.UTF-8
check_lang "LANGUAGE wins over the locale" 'Clans, 2 jugadores' LANGUAGE=es:en LANG=en_GB.UTF-8
check_lang "LANGUAGE's first known language is taken" 'Clans, 2 players' LANGUAGE=xx:en:es LANG=es_ES.UTF-8
check_lang "LANGUAGE is ignored in the C locale" 'Clans, 2 players, seed 3.' LANGUAGE=es LANG=C
check_lang "no locale: English" 'Clans, 2 players, seed 3.'
check_lang "a language without a catalogue: English" 'Clans, 2 players, seed 3.' LANG=de_DE.UTF-8
mkdir -p broken/xx/LC_MESSAGES broken/yy/LC_MESSAGES
head -c 100 /dev/urandom > broken/xx/LC_MESSAGES/tabula.mo
head -c 40 "$(dirname "$tabula")/po/es/LC_MESSAGES/tabula.mo" > broken/yy/LC_MESSAGES/tabula.mo
check_lang "a catalogue that is not one is refused: English" 'Clans, 2 players, seed 3.' \
  LANG=xx_XX.UTF-8 TABULA_LOCALE_DIR="$tmp/broken"
check_lang "a catalogue cut short is refused: English" 'Clans, 2 players, seed 3.' \
  LANG=yy_YY.UTF-8 TABULA_LOCALE_DIR="$tmp/broken"
cp "$(dirname "$tabula")/po/es/LC_MESSAGES/tabula.mo" broken/yy/LC_MESSAGES/tabula.mo
check_lang "TABULA_LOCALE_DIR names where the catalogues are" 'Clans, 2 jugadores' \
  LANG=yy_YY.UTF-8 TABULA_LOCALE_DIR="$tmp/broken"
# the English words are the same as with no catalogue at all (the msgids)
LANG=C "$tabula" play clans --seats random,random --seed 5 --no-colour --record a.json </dev/null > en1.out 2>&1
LANG=en_GB.UTF-8 "$tabula" play clans --seats random,random --seed 5 --no-colour --record a.json </dev/null > en2.out 2>&1
cmp -s en1.out en2.out && grep -q '^Game over.$' en1.out && ok "English is the same with and without a locale" \
  || bad "English differs between LANG=C and LANG=en_GB"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
