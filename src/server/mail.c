/*
 * mail.c — the server's e-mail (mail.h): confirmation links, turn e-mails of
 * slow games with their one-click unsubscribe, and the thread that hands
 * them to the SMTP relay through libcurl.
 *
 * Invariants (besides mail.h's):
 *   - the lock guards the queue and the counters only; the thread never holds
 *     it while it reads the store or speaks SMTP, so queuing never waits;
 *   - while the relay fails, the whole queue pauses (5 s, doubling to 5
 *     minutes) and one e-mail per pause tries it again;
 *   - a turn e-mail is claimed in the store (turn_emails row) before it is
 *     built and sent; once claimed it is retried until it goes out or a day
 *     has passed, never claimed again;
 *   - a confirmation link is 32 bytes, base64url: its expiry time (8 bytes)
 *     and 24 random bytes; only its hash is stored, so the expiry read from
 *     the link cannot be forged without changing the hash;
 *   - an unsubscribe link is derived (keyed BLAKE2b) from the account's
 *     password hash, its id and its address, so every e-mail carries the same
 *     working link without the link itself being stored; its hash is kept
 *     (accounts.unsubscribe_hash) to find the account again;
 *   - every word a person reads (e-mails, pages) is a msgid of the table
 *     below, said in the account's language through that language's
 *     compiled catalogue (po/LANG.po; src/lang/catalog.c), English without;
 *   - header values are checked or encoded: an address holds no CR, LF or
 *     angle brackets, subjects are RFC 2047 words, bodies base64.
 */
#include "mail.h"
#include "core/text.h"
#include "lang/catalog.h"

#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- words ---- */

enum {
    W_TURN_SUBJECT,
    W_HELLO,
    W_TURN,
    W_TURN_ALONE,
    W_OPEN,
    W_WHY,
    W_STOP,
    W_AND,
    W_LIST,
    W_CONFIRM_SUBJECT,
    W_CONFIRM,
    W_CONFIRM_EXPIRES,
    W_CONFIRMED_TITLE,
    W_CONFIRMED,
    W_BAD_LINK_TITLE,
    W_BAD_CONFIRM,
    W_UNSUB_TITLE,
    W_UNSUB_ASK_TITLE,
    W_UNSUB_ASK,
    W_UNSUB_BUTTON,
    W_UNSUB,
    W_BAD_UNSUB,
    W_ACCOUNT,
    W_HOME,
    W_COUNT
};

/* N_() marks a msgid for the catalogue check (tests/web/i18n.test.mjs). */
#ifndef N_
#define N_(s) s
#endif

#define MAIL_LANGS 16 /* languages whose catalogues are kept open */
#define MAIL_TEXT_MAX ((size_t)1 << 24) /* bytes of an e-mail or page being made, at most */

/* The msgid of each (English; its translations are in po/LANG.po, read
 * through the compiled catalogue of the account's language). */
static const char *const mail_text[W_COUNT] = {
    [W_TURN_SUBJECT] = N_("Your turn in {game}"),
    [W_HELLO] = N_("Hello {name},"),
    [W_TURN] = N_("It is your turn in your game of {game} with {opponents}."),
    [W_TURN_ALONE] = N_("It is your turn in your game of {game}."),
    [W_OPEN] = N_("Open the game:"),
    [W_WHY] = N_("Tabula sends one e-mail per turn when a game waits on you and you do not have "
               "it open."),
    [W_STOP] = N_("To get no more of these e-mails:"),
    [W_AND] = N_("{names} and {last}"),
    [W_LIST] = N_("{names}, {next}"),
    [W_CONFIRM_SUBJECT] = N_("Confirm your e-mail address for Tabula"),
    [W_CONFIRM] = N_("Open this link to confirm that {email} is your address. Tabula will then "
                   "tell you by e-mail when a slow game waits on your turn:"),
    [W_CONFIRM_EXPIRES] = N_("The link works for {hours} hours. If you did not ask for it, "
                           "ignore this e-mail."),
    [W_CONFIRMED_TITLE] = N_("E-mail address confirmed"),
    [W_CONFIRMED] = N_("Thank you: {email} is confirmed. Tabula will tell you when a game waits on "
                     "your turn."),
    [W_BAD_LINK_TITLE] = N_("This link does not work"),
    [W_BAD_CONFIRM] = N_("This confirmation link is wrong, was used already or has expired. Ask "
                       "for a new one on your account page."),
    [W_UNSUB_TITLE] = N_("Turn e-mails stopped"),
    [W_UNSUB_ASK_TITLE] = N_("Stop turn e-mails?"),
    [W_UNSUB_ASK] = N_("Press the button to get no more e-mails when it is your turn."),
    [W_UNSUB_BUTTON] = N_("Stop turn e-mails"),
    [W_UNSUB] = N_("You will get no more e-mails when it is your turn. You can turn them on "
                    "again from your account page."),
    [W_BAD_UNSUB] = N_("This link to stop e-mails is wrong or out of date. Turn e-mails can "
                        "also be switched off from your account page."),
    [W_ACCOUNT] = N_("Open your account"),
    [W_HOME] = N_("Back to Tabula"),
};

/* The word w in a language (its catalogue; NULL: English). */
static const char *mail_word(const lang_catalog *lang, int w)
{
    const char *t = lang_catalog_translate((void *)lang, mail_text[w], NULL, 0);
    return t ? t : mail_text[w];
}

/* A growing text (malloc'd); on running out of memory it stays failed. */
typedef struct mail_buf {
    char *s;
    size_t len, cap;
    bool failed;
} mail_buf;

static void mail_put(mail_buf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (n > MAIL_TEXT_MAX || b->len > MAIL_TEXT_MAX) { /* no e-mail or page is ever so long */
        b->failed = true;
        return;
    }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *g = realloc(b->s, cap);
        if (!g) {
            b->failed = true;
            return;
        }
        b->s = g;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void mail_puts(mail_buf *b, const char *s)
{
    mail_put(b, s, strlen(s));
}

/* The text of `b` (the caller frees it), or NULL when it failed. */
static char *mail_take(mail_buf *b)
{
    if (b->failed || !b->s) {
        free(b->s);
        return b->failed ? NULL : strdup("");
    }
    return b->s;
}

/* Word `w` with its {placeholders} filled from names[i] = values[i]; an
 * unknown placeholder stays as written.  `html`: values escaped. */
static void mail_format(mail_buf *b, const lang_catalog *lang, int w, int n, const char *const *names,
                        const char *const *values, bool html);

static void mail_put_html(mail_buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': mail_puts(b, "&amp;"); break;
        case '<': mail_puts(b, "&lt;"); break;
        case '>': mail_puts(b, "&gt;"); break;
        case '"': mail_puts(b, "&quot;"); break;
        case '\'': mail_puts(b, "&#39;"); break;
        default: mail_put(b, s, 1);
        }
    }
}

static void mail_format(mail_buf *b, const lang_catalog *lang, int w, int n, const char *const *names,
                        const char *const *values, bool html)
{
    const char *t = mail_word(lang, w);
    while (*t) {
        const char *open = strchr(t, '{');
        const char *close = open ? strchr(open, '}') : NULL;
        if (!open || !close) {
            if (html)
                mail_put_html(b, t);
            else
                mail_puts(b, t);
            return;
        }
        mail_buf lit = {0};
        mail_put(&lit, t, (size_t)(open - t));
        if (lit.s)
            html ? mail_put_html(b, lit.s) : mail_puts(b, lit.s);
        b->failed |= lit.failed;
        free(lit.s);
        size_t klen = (size_t)(close - open - 1);
        int k = 0;
        while (k < n && !(strlen(names[k]) == klen && strncmp(names[k], open + 1, klen) == 0))
            k++;
        if (k < n)
            html ? mail_put_html(b, values[k]) : mail_puts(b, values[k]);
        else
            mail_put(b, open, (size_t)(close - open + 1));
        t = close + 1;
    }
}

/* "Ann", "Ann and Bob", "Ann, Bob and Carl" in the language. */
static char *mail_names(const lang_catalog *lang, int n, char (*names)[SRV_NAME_LEN])
{
    if (n <= 0)
        return strdup("");
    char *acc = strdup(names[0]);
    for (int i = 1; acc && i < n; i++) {
        mail_buf b = {0};
        const char *keys[] = {"names", i == n - 1 ? "last" : "next"};
        const char *vals[] = {acc, names[i]};
        mail_format(&b, lang, i == n - 1 ? W_AND : W_LIST, 2, keys, vals, false);
        free(acc);
        acc = mail_take(&b);
    }
    return acc;
}

/* ---- addresses, links ---- */

/* A plain address: local@domain, printable ASCII or UTF-8, none of the
 * characters that would end a header or an SMTP path; a player's domain has
 * a dot (the sender's may be a local name such as localhost). */
static bool mail_valid_address(const char *a, bool dotted)
{
    size_t len = strlen(a);
    if (len < 3 || len >= SRV_EMAIL_LEN)
        return false;
    const char *at = strchr(a, '@');
    if (!at || at == a || !at[1] || strchr(at + 1, '@'))
        return false;
    for (const unsigned char *p = (const unsigned char *)a; *p; p++)
        if (*p <= 0x20 || *p == 0x7f || strchr("<>()[]\\,;:\"", *p))
            return false;
    const char *dot = strchr(at + 1, '.');
    return !dotted || (dot && dot != at + 1 && dot[1]);
}

/* A fresh confirmation link: 8 bytes of expiry (Unix seconds, big-endian)
 * and 24 random bytes, base64url. */
static void mail_confirm_token(char text[64], uint8_t hash[SRV_HASH_LEN])
{
    uint8_t raw[32];
    uint64_t until = (uint64_t)time(NULL) + (uint64_t)SRV_MAIL_CONFIRM_HOURS * 3600u;
    for (int i = 0; i < 8; i++)
        raw[i] = (uint8_t)(until >> (56 - 8 * i));
    randombytes_buf(raw + 8, sizeof raw - 8);
    sodium_bin2base64(text, 64, raw, sizeof raw, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    sodium_memzero(raw, sizeof raw);
    srv_secret_hash(text, hash);
}

/* Whether a link's text is well formed and not expired. */
static bool mail_confirm_token_live(const char *text)
{
    uint8_t raw[32];
    size_t len = 0;
    if (strlen(text) != 43 ||
        sodium_base642bin(raw, sizeof raw, text, strlen(text), NULL, &len, NULL,
                          sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
        len != sizeof raw)
        return false;
    uint64_t until = 0;
    for (int i = 0; i < 8; i++)
        until = until << 8 | raw[i];
    return (uint64_t)time(NULL) <= until;
}

/* The account's unsubscribe link (base64url) and its hash. */
static void mail_unsubscribe_token(int64_t account, const srv_mail_account *a, char text[64],
                                   uint8_t hash[SRV_HASH_LEN])
{
    uint8_t key[32], raw[32];
    crypto_generichash(key, sizeof key, (const unsigned char *)a->key, strlen(a->key), NULL, 0);
    char msg[SRV_EMAIL_LEN + 64];
    int n = snprintf(msg, sizeof msg, "tabula unsubscribe\n%lld\n%s", (long long)account,
                     a->email);
    crypto_generichash(raw, sizeof raw, (const unsigned char *)msg, (size_t)n, key, sizeof key);
    sodium_bin2base64(text, 64, raw, sizeof raw, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    sodium_memzero(key, sizeof key);
    sodium_memzero(raw, sizeof raw);
    srv_secret_hash(text, hash);
}

/* ---- the queue and the thread ---- */

enum { MAIL_CONFIRM, MAIL_TURN };

typedef struct mail_job {
    int kind;
    srv_mail_turn turn;      /* MAIL_TURN */
    char to[SRV_EMAIL_LEN];  /* set once the e-mail is built */
    char *message;           /* the whole e-mail, once built (malloc'd) */
    uint64_t first_us, next_us;
    int attempts;
    struct mail_job *next;
} mail_job;

struct srv_mailer {
    srv_config cfg;
    srv_store *store;
    char smtp[512];          /* "" : no relay, nothing is sent */
    char label[512];         /* the relay for the log: no user or password */
    char from[SRV_EMAIL_LEN];
    char base[512];          /* links start with this (ends in '/') */
    int after;               /* --turn-email-after; 0 never */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    mail_job *jobs;          /* oldest first */
    int queued;
    bool stopping, started, failing, full_logged;
    uint64_t pause_until_us; /* the relay failed: no e-mail is tried before then */
    int pause_shift;         /* failures in a row: the pause doubles with each */
    atomic_bool abort_send;
    atomic_uint generation;
    pthread_t thread;
    struct {
        int64_t account;
        uint64_t at_us;
    } recent[64];            /* confirmation e-mails lately asked for */
    int recent_next;
    /* the catalogues of the accounts' languages, opened when first needed
     * (under lock; a catalogue never changes once open) */
    struct {
        char code[16];
        lang_catalog *cat; /* NULL: none (English) */
    } lang[MAIL_LANGS];
    int nlang;
};

/* The catalogue of an account's language ("es", "es-MX": its language
 * "es"); NULL for English, a language without a catalogue, or when more
 * than MAIL_LANGS languages were asked for. */
static const lang_catalog *mail_catalog(srv_mailer *m, const char *lang)
{
    char code[16];
    if (!lang_code_of(lang, code, sizeof code))
        return NULL;
    code[strcspn(code, "_")] = '\0';
    if (!code[0] || strcmp(code, "en") == 0)
        return NULL;
    const lang_catalog *found = NULL;
    pthread_mutex_lock(&m->lock);
    int i = 0;
    while (i < m->nlang && strcmp(m->lang[i].code, code) != 0)
        i++;
    if (i == m->nlang && i < MAIL_LANGS) {
        snprintf(m->lang[i].code, sizeof m->lang[i].code, "%s", code);
        m->lang[i].cat = lang_catalog_open(code);
        m->nlang++;
    }
    if (i < m->nlang)
        found = m->lang[i].cat;
    pthread_mutex_unlock(&m->lock);
    return found;
}

static void mail_job_free(mail_job *j)
{
    if (j) {
        free(j->message);
        free(j);
    }
}

/* Takes j into the queue (the lock held); false when full (j freed). */
static bool mail_enqueue_locked(srv_mailer *m, mail_job *j)
{
    if (m->stopping || m->queued >= SRV_MAIL_QUEUE) {
        if (!m->stopping && !m->full_logged) {
            srv_log(&m->cfg, "mail: %d e-mails wait already; new ones are dropped until the "
                             "relay takes them",
                    SRV_MAIL_QUEUE);
            m->full_logged = true;
        }
        mail_job_free(j);
        return false;
    }
    mail_job **tail = &m->jobs;
    while (*tail)
        tail = &(*tail)->next;
    *tail = j;
    m->queued++;
    pthread_cond_signal(&m->wake);
    return true;
}

/* The e-mail around a plain-text body: headers, base64 body. */
static char *mail_message(srv_mailer *m, const char *to, const char *subject, const char *body,
                          const char *unsubscribe)
{
    mail_buf b = {0};
    char line[1024];
    snprintf(line, sizeof line, "From: Tabula <%s>\r\nTo: <%s>\r\n", m->from, to);
    mail_puts(&b, line);
    /* Subject: RFC 2047 words of at most 45 bytes each, cut between characters. */
    mail_puts(&b, "Subject:");
    size_t len = strlen(subject);
    for (size_t at = 0; at < len;) {
        size_t n = len - at > 45 ? 45 : len - at;
        while (at + n < len && n > 1 && ((unsigned char)subject[at + n] & 0xC0) == 0x80)
            n--;
        char enc[128];
        sodium_bin2base64(enc, sizeof enc, (const unsigned char *)subject + at, n,
                          sodium_base64_VARIANT_ORIGINAL);
        snprintf(line, sizeof line, "%s=?UTF-8?B?%s?=", at ? "\r\n " : " ", enc);
        mail_puts(&b, line);
        at += n;
    }
    mail_puts(&b, "\r\n");
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    /* RFC 5322's English names, whatever the process's locale */
    static const char days[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    snprintf(line, sizeof line, "Date: %s, %02d %s %04d %02d:%02d:%02d +0000\r\n",
             days[tm.tm_wday % 7], tm.tm_mday, months[tm.tm_mon % 12], tm.tm_year + 1900,
             tm.tm_hour, tm.tm_min, tm.tm_sec);
    mail_puts(&b, line);
    uint8_t rnd[12];
    randombytes_buf(rnd, sizeof rnd);
    char hex[25];
    sodium_bin2hex(hex, sizeof hex, rnd, sizeof rnd);
    const char *domain = strchr(m->from, '@');
    snprintf(line, sizeof line, "Message-ID: <%s@%s>\r\n", hex, domain ? domain + 1 : "tabula");
    mail_puts(&b, line);
    mail_puts(&b, "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=UTF-8\r\n"
                  "Content-Transfer-Encoding: base64\r\nAuto-Submitted: auto-generated\r\n");
    if (unsubscribe) {
        /* RFC 8058: a mail program may stop the e-mails with one POST */
        mail_puts(&b, "List-Unsubscribe: <");
        mail_puts(&b, unsubscribe);
        mail_puts(&b, ">\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n");
    }
    mail_puts(&b, "\r\n");
    size_t blen = strlen(body);
    for (size_t at = 0; at < blen; at += 57) { /* 57 bytes: lines of 76 characters */
        size_t n = blen - at > 57 ? 57 : blen - at;
        char enc[80];
        sodium_bin2base64(enc, sizeof enc, (const unsigned char *)body + at, n,
                          sodium_base64_VARIANT_ORIGINAL);
        mail_puts(&b, enc);
        mail_puts(&b, "\r\n");
    }
    return mail_take(&b);
}

/* A link: the base, then `path` and a token, and the language. */
static void mail_link(const srv_mailer *m, char *out, size_t outlen, const char *path,
                      const char *token, const lang_catalog *lang)
{
    snprintf(out, outlen, "%s%s%s&lang=%s", m->base, path, token ? token : "",
             lang_catalog_code(lang));
}

/* Builds a claimed turn's e-mail: 0 built, 1 nothing to send, -1 try later. */
static int mail_turn_build(srv_mailer *m, mail_job *j)
{
    char err[TB_ERR_LEN], at[SRV_TIME_LEN];
    srv_mail_account a;
    int rc = m->store->m->mail_account(m->store, j->turn.account, &a, err, sizeof err);
    if (rc < 0) {
        srv_log(&m->cfg, "mail: %s", err);
        return -1;
    }
    if (rc == 1 || !a.email[0] || !a.confirmed || !a.turn_emails)
        return 1;
    srv_iso_now(at);
    rc = m->store->m->mail_turn_claim(m->store, j->turn.id, j->turn.n, j->turn.account, at, err,
                                      sizeof err);
    if (rc < 0) {
        srv_log(&m->cfg, "mail: %s", err);
        return -1;
    }
    if (rc == 1)
        return 1; /* sent already, here or by another server */
    char token[64], unsub[700], game[700];
    uint8_t hash[SRV_HASH_LEN];
    mail_unsubscribe_token(j->turn.account, &a, token, hash);
    if (!a.has_unsubscribe || !srv_secret_equal(hash, a.unsubscribe_hash)) {
        /* the link changes with the password: the newest one works */
        if (m->store->m->mail_unsubscribe_key(m->store, j->turn.account, hash, err, sizeof err))
            srv_log(&m->cfg, "mail: %s", err);
    }
    const lang_catalog *lang = mail_catalog(m, a.lang);
    mail_link(m, unsub, sizeof unsub, "email/unsubscribe?token=", token, lang);
    snprintf(game, sizeof game, "%sgame.html?game=%s", m->base, j->turn.id);
    char *opponents = mail_names(lang, j->turn.opponents, j->turn.opponent);
    if (!opponents)
        return -1;
    const char *keys[] = {"game", "opponents", "name"};
    const char *vals[] = {j->turn.title, opponents, a.name};
    mail_buf subject = {0}, body = {0};
    mail_format(&subject, lang, W_TURN_SUBJECT, 3, keys, vals, false);
    mail_format(&body, lang, W_HELLO, 3, keys, vals, false);
    mail_puts(&body, "\r\n\r\n");
    mail_format(&body, lang, j->turn.opponents ? W_TURN : W_TURN_ALONE, 3, keys, vals, false);
    mail_puts(&body, "\r\n\r\n");
    mail_format(&body, lang, W_OPEN, 0, NULL, NULL, false);
    mail_puts(&body, "\r\n");
    mail_puts(&body, game);
    mail_puts(&body, "\r\n\r\n-- \r\n");
    mail_format(&body, lang, W_WHY, 0, NULL, NULL, false);
    mail_puts(&body, "\r\n");
    mail_format(&body, lang, W_STOP, 0, NULL, NULL, false);
    mail_puts(&body, "\r\n");
    mail_puts(&body, unsub);
    mail_puts(&body, "\r\n");
    free(opponents);
    char *s = mail_take(&subject), *t = mail_take(&body);
    j->message = s && t ? mail_message(m, a.email, s, t, unsub) : NULL;
    free(s);
    free(t);
    snprintf(j->to, sizeof j->to, "%s", a.email);
    return j->message ? 0 : -1;
}

typedef struct mail_reader {
    const char *text;
    size_t at, len;
} mail_reader;

static size_t mail_read(char *buf, size_t size, size_t nitems, void *arg)
{
    mail_reader *r = arg;
    size_t n = size * nitems;
    if (n > r->len - r->at)
        n = r->len - r->at;
    memcpy(buf, r->text + r->at, n);
    r->at += n;
    return n;
}

static int mail_progress(void *arg, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
    (void)a, (void)b, (void)c, (void)d;
    srv_mailer *m = arg;
    return atomic_load(&m->abort_send) ? 1 : 0; /* the server is stopping */
}

/* Hands one e-mail to the relay: 0 sent, else why in err. */
static int mail_send(srv_mailer *m, const char *to, const char *message, char *err, size_t errlen)
{
    CURL *c = curl_easy_init();
    if (!c) {
        snprintf(err, errlen, "cannot start libcurl");
        return -1;
    }
    char from[SRV_EMAIL_LEN + 2], rcpt[SRV_EMAIL_LEN + 2];
    snprintf(from, sizeof from, "<%s>", m->from);
    snprintf(rcpt, sizeof rcpt, "<%s>", to);
    struct curl_slist *list = curl_slist_append(NULL, rcpt);
    mail_reader r = {message, 0, strlen(message)};
    char curl_err[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(c, CURLOPT_URL, m->smtp);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
    curl_easy_setopt(c, CURLOPT_MAIL_FROM, from);
    /* smtp://: STARTTLS when the relay offers it; smtps://: TLS from the start */
    curl_easy_setopt(c, CURLOPT_USE_SSL, (long)CURLUSESSL_TRY);
    curl_easy_setopt(c, CURLOPT_MAIL_RCPT, list);
    curl_easy_setopt(c, CURLOPT_READFUNCTION, mail_read);
    curl_easy_setopt(c, CURLOPT_READDATA, &r);
    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, mail_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, m);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
    CURLcode rc = list ? curl_easy_perform(c) : CURLE_OUT_OF_MEMORY;
    if (rc != CURLE_OK)
        snprintf(err, errlen, "%s", curl_err[0] ? curl_err : curl_easy_strerror(rc));
    curl_slist_free_all(list);
    curl_easy_cleanup(c);
    return rc == CURLE_OK ? 0 : -1;
}

enum { MAIL_DONE, MAIL_AGAIN, MAIL_RELAY_FAILED };

/* Works on one job: MAIL_DONE (sent, or not to be sent), MAIL_AGAIN (the
 * store failed: this one later), MAIL_RELAY_FAILED (every e-mail later). */
static int mail_work(srv_mailer *m, mail_job *j)
{
    if (!m->smtp[0])
        return MAIL_DONE;
    if (!j->message) {
        int rc = mail_turn_build(m, j);
        if (rc != 0)
            return rc > 0 ? MAIL_DONE : MAIL_AGAIN;
    }
    char err[CURL_ERROR_SIZE + 64];
    if (mail_send(m, j->to, j->message, err, sizeof err) == 0) {
        pthread_mutex_lock(&m->lock);
        bool was = m->failing;
        m->failing = false;
        pthread_mutex_unlock(&m->lock);
        if (was)
            srv_log(&m->cfg, "mail: the relay takes e-mails again");
        return MAIL_DONE;
    }
    pthread_mutex_lock(&m->lock);
    bool first = !m->failing;
    m->failing = true;
    pthread_mutex_unlock(&m->lock);
    if (first)
        srv_log(&m->cfg, "mail: the relay %s refused or failed (%s); e-mails wait and are tried "
                         "again",
                m->label, err);
    return MAIL_RELAY_FAILED;
}

static void *mail_thread(void *arg)
{
    srv_mailer *m = arg;
    pthread_mutex_lock(&m->lock);
    while (!m->stopping) {
        uint64_t now = srv_now_us();
        mail_job **pick = NULL;
        /* while the relay fails, one e-mail tries it per pause */
        bool paused = now < m->pause_until_us;
        uint64_t soonest = paused ? m->pause_until_us : UINT64_MAX;
        for (mail_job **p = &m->jobs; !paused && *p; p = &(*p)->next) {
            if ((*p)->next_us <= now) {
                pick = p;
                break;
            }
            if ((*p)->next_us < soonest)
                soonest = (*p)->next_us;
        }
        if (!pick) {
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            uint64_t wait = soonest == UINT64_MAX ? 1000000u : soonest - now;
            if (wait > 1000000u)
                wait = 1000000u;
            until.tv_sec += (time_t)(wait / 1000000u);
            until.tv_nsec += (long)(wait % 1000000u) * 1000L;
            if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&m->wake, &m->lock, &until);
            continue;
        }
        mail_job *j = *pick;
        *pick = j->next;
        m->queued--;
        pthread_mutex_unlock(&m->lock);
        int work = mail_work(m, j);
        bool done = work == MAIL_DONE;
        uint64_t after = srv_now_us();
        if (!done && after - j->first_us > 86400ull * 1000000u) {
            srv_log(&m->cfg, "mail: an e-mail to %s waited a day for the relay; it is dropped",
                    j->to[0] ? j->to : "an account");
            done = true;
        }
        pthread_mutex_lock(&m->lock);
        if (work == MAIL_RELAY_FAILED) {
            /* the whole queue waits 5 s, 10 s, 20 s ... 5 minutes at most */
            uint64_t pause = 5000000ull << (m->pause_shift < 6 ? m->pause_shift : 6);
            m->pause_shift++;
            m->pause_until_us = after + (pause > 300000000ull ? 300000000ull : pause);
        } else if (work == MAIL_DONE && j->message) {
            m->pause_shift = 0;
            m->pause_until_us = 0;
        }
        if (done) {
            mail_job_free(j);
            if (m->queued < SRV_MAIL_QUEUE / 2)
                m->full_logged = false;
        } else {
            /* again after 5 s, 10 s, 20 s ... 5 minutes at most */
            int shift = j->attempts < 6 ? j->attempts : 6;
            j->attempts++;
            uint64_t delay = (5000000ull << shift);
            j->next_us = after + (delay > 300000000ull ? 300000000ull : delay);
            j->next = NULL;
            mail_job **tail = &m->jobs;
            while (*tail)
                tail = &(*tail)->next;
            *tail = j;
            m->queued++;
        }
    }
    pthread_mutex_unlock(&m->lock);
    return NULL;
}

srv_mailer *srv_mailer_start(const srv_config *cfg, srv_store *store, char *err, size_t errlen)
{
    srv_mailer *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    m->cfg = *cfg;
    m->store = store;
    snprintf(m->smtp, sizeof m->smtp, "%s", cfg->smtp_url ? cfg->smtp_url : "");
    snprintf(m->from, sizeof m->from, "%s", cfg->mail_from ? cfg->mail_from : "tabula@localhost");
    m->after = cfg->turn_email_after < 0    ? 0
               : cfg->turn_email_after == 0 ? SRV_MAIL_AFTER_DEFAULT
                                            : cfg->turn_email_after;
    if (m->smtp[0] && strncmp(m->smtp, "smtp://", 7) != 0 && strncmp(m->smtp, "smtps://", 8) != 0) {
        snprintf(err, errlen, "--smtp must be smtp://HOST[:PORT] or smtps://HOST[:PORT]");
        free(m);
        return NULL;
    }
    if (!mail_valid_address(m->from, false)) {
        snprintf(err, errlen, "--mail-from must be an e-mail address such as tabula@example.org");
        free(m);
        return NULL;
    }
    const char *pub = cfg->public_url ? cfg->public_url : cfg->advertise;
    /* smtp://user:password@host:port -> smtp://host:port for the log */
    const char *scheme_end = strstr(m->smtp, "://");
    const char *at = scheme_end ? strchr(scheme_end + 3, '@') : NULL;
    if (at)
        snprintf(m->label, sizeof m->label, "%.*s%s", (int)(scheme_end + 3 - m->smtp), m->smtp,
                 at + 1);
    else
        snprintf(m->label, sizeof m->label, "%s", m->smtp);
    if (pub)
        snprintf(m->base, sizeof m->base, "%s%s", pub,
                 *pub && pub[strlen(pub) - 1] == '/' ? "" : "/");
    if (m->smtp[0] && curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(err, errlen, "cannot start libcurl");
        free(m);
        return NULL;
    }
    pthread_mutex_init(&m->lock, NULL);
    pthread_cond_init(&m->wake, NULL);
    if (pthread_create(&m->thread, NULL, mail_thread, m) != 0) {
        snprintf(err, errlen, "cannot start the mail thread");
        srv_mailer_free(m);
        return NULL;
    }
    m->started = true;
    return m;
}

void srv_mailer_set_port(srv_mailer *m, int port)
{
    if (!m || m->base[0])
        return;
    const char *host = m->cfg.host;
    bool any = !host || !*host || strcmp(host, "0.0.0.0") == 0 || strcmp(host, "::") == 0;
    bool v6 = !any && strchr(host, ':');
    pthread_mutex_lock(&m->lock);
    snprintf(m->base, sizeof m->base, "http://%s%s%s:%d/", v6 ? "[" : "",
             any ? "localhost" : host, v6 ? "]" : "", port);
    pthread_mutex_unlock(&m->lock);
}

bool srv_mailer_sending(const srv_mailer *m)
{
    return m && m->smtp[0];
}

int srv_mailer_after(const srv_mailer *m)
{
    return m && m->smtp[0] ? m->after : 0;
}

unsigned srv_mailer_generation(const srv_mailer *m)
{
    return m ? atomic_load(&m->generation) : 0;
}

void srv_mailer_turn(srv_mailer *m, const srv_mail_turn *turn)
{
    if (!m || !m->smtp[0])
        return;
    pthread_mutex_lock(&m->lock);
    for (mail_job *j = m->jobs; j; j = j->next)
        if (j->kind == MAIL_TURN && j->turn.n == turn->n && j->turn.account == turn->account &&
            strcmp(j->turn.id, turn->id) == 0) {
            pthread_mutex_unlock(&m->lock);
            return; /* on its way already */
        }
    mail_job *j = calloc(1, sizeof *j);
    if (j) {
        j->kind = MAIL_TURN;
        j->turn = *turn;
        j->first_us = srv_now_us();
        mail_enqueue_locked(m, j);
    }
    pthread_mutex_unlock(&m->lock);
}

void srv_mailer_stop(srv_mailer *m)
{
    if (!m)
        return;
    pthread_mutex_lock(&m->lock);
    m->stopping = true;
    atomic_store(&m->abort_send, true);
    pthread_cond_broadcast(&m->wake);
    pthread_mutex_unlock(&m->lock);
    if (m->started) {
        pthread_join(m->thread, NULL);
        m->started = false;
    }
    int left = 0;
    while (m->jobs) {
        mail_job *j = m->jobs;
        m->jobs = j->next;
        mail_job_free(j);
        left++;
    }
    m->queued = 0;
    if (left)
        srv_log(&m->cfg, "mail: %d e-mail%s not sent (the server stopped)", left,
                left == 1 ? "" : "s");
}

void srv_mailer_free(srv_mailer *m)
{
    if (!m)
        return;
    srv_mailer_stop(m);
    for (int i = 0; i < m->nlang; i++)
        lang_catalog_free(m->lang[i].cat);
    pthread_mutex_destroy(&m->lock);
    pthread_cond_destroy(&m->wake);
    if (m->smtp[0])
        curl_global_cleanup();
    free(m);
}

/* ---- the HTTP side ---- */

static int mail_state_reply(srv_mailer *m, int64_t account, int status, char **reply)
{
    srv_mail_account a;
    char err[TB_ERR_LEN];
    int rc = m->store->m->mail_account(m->store, account, &a, err, sizeof err);
    if (rc < 0) {
        srv_log(&m->cfg, "mail: %s", err);
        return srv_error_reply(reply, 500, "store_failed",
                               "the server could not reach its database; try again");
    }
    if (rc == 1)
        return srv_error_reply(reply, 401, "not_signed_in", "log in first");
    json_t *j = json_pack("{s:s,s:b,s:b,s:b,s:b}", "email", a.email, "confirmed", a.confirmed,
                          "pending", a.pending, "turn_emails", a.turn_emails, "sending",
                          srv_mailer_sending(m));
    *reply = srv_json_text(j);
    return *reply ? status : SRV_INTERNAL_STATUS;
}

int srv_mail_get(srv_mailer *m, int64_t account, char **reply)
{
    return mail_state_reply(m, account, 200, reply);
}

int srv_mail_put(srv_mailer *m, int64_t account, const char *body, size_t len, char **reply)
{
    json_error_t jerr;
    json_t *req = json_loadb(body ? body : "", len, 0, &jerr);
    if (!json_is_object(req)) {
        json_decref(req);
        return srv_error_reply(reply, 400, "bad_request",
                               "the body must be a JSON object such as {\"email\": \"...\"}");
    }
    const json_t *je = json_object_get(req, "email"), *jt = json_object_get(req, "turn_emails");
    if ((je && !json_is_string(je)) || (jt && !json_is_boolean(jt)) || (!je && !jt)) {
        json_decref(req);
        return srv_error_reply(reply, 400, "bad_request",
                               "give \"email\" (a string) and/or \"turn_emails\" (true or false)");
    }
    char email[SRV_EMAIL_LEN] = "";
    if (je) {
        const char *e = json_string_value(je);
        if (*e && !mail_valid_address(e, true)) {
            json_decref(req);
            return srv_error_reply(reply, 400, "bad_email", "that is not an e-mail address");
        }
        snprintf(email, sizeof email, "%s", e);
    }
    bool on = jt && json_is_true(jt);
    json_decref(req);
    char err[TB_ERR_LEN];
    srv_mail_account a;
    int rc = m->store->m->mail_account(m->store, account, &a, err, sizeof err);
    if (rc == 1)
        return srv_error_reply(reply, 401, "not_signed_in", "log in first");
    bool fresh = je && email[0] && !(strcmp(email, a.email) == 0 && a.confirmed);
    if (rc == 0 && fresh && !srv_mailer_sending(m))
        return srv_error_reply(reply, 409, "no_mail", "this server sends no e-mail");
    if (rc == 0 && fresh) {
        /* one confirmation e-mail per account every 30 seconds at most, and
         * 64 a minute for the whole server (so that accounts made by the
         * hundred cannot turn the relay against other people's addresses;
         * an entry is reused only once it is a minute old, so the first
         * limit holds too) */
        uint64_t now = srv_now_us();
        bool soon = false;
        pthread_mutex_lock(&m->lock);
        for (int i = 0; i < 64; i++)
            if (m->recent[i].account == account && m->recent[i].at_us &&
                now - m->recent[i].at_us < 30000000u)
                soon = true;
        uint64_t oldest = m->recent[m->recent_next].at_us;
        bool busy = !soon && oldest && now - oldest < 60000000u;
        if (!soon && !busy) {
            m->recent[m->recent_next].account = account;
            m->recent[m->recent_next].at_us = now;
            m->recent_next = (m->recent_next + 1) % 64;
        }
        pthread_mutex_unlock(&m->lock);
        if (busy)
            return srv_error_reply(reply, 429, "mail_busy",
                                   "many confirmation e-mails went out this minute; try again in "
                                   "a minute");
        if (soon)
            return srv_error_reply(reply, 429, "too_soon",
                                   "a confirmation e-mail was sent a moment ago; wait half a "
                                   "minute before asking for another");
    }
    /* The confirmation e-mail is built before anything is stored, so that
     * running out of memory changes nothing. */
    mail_job *job = NULL;
    uint8_t hash[SRV_HASH_LEN];
    if (rc == 0 && fresh) {
        char token[64], link[700], hours[16];
        mail_confirm_token(token, hash);
        const lang_catalog *lang = mail_catalog(m, a.lang);
        mail_link(m, link, sizeof link, "email/confirm?token=", token, lang);
        snprintf(hours, sizeof hours, "%d", SRV_MAIL_CONFIRM_HOURS);
        const char *keys[] = {"name", "email", "hours"};
        const char *vals[] = {a.name, email, hours};
        mail_buf subject = {0}, text = {0};
        mail_format(&subject, lang, W_CONFIRM_SUBJECT, 3, keys, vals, false);
        mail_format(&text, lang, W_HELLO, 3, keys, vals, false);
        mail_puts(&text, "\r\n\r\n");
        mail_format(&text, lang, W_CONFIRM, 3, keys, vals, false);
        mail_puts(&text, "\r\n");
        mail_puts(&text, link);
        mail_puts(&text, "\r\n\r\n");
        mail_format(&text, lang, W_CONFIRM_EXPIRES, 3, keys, vals, false);
        mail_puts(&text, "\r\n");
        char *s = mail_take(&subject), *t = mail_take(&text);
        job = calloc(1, sizeof *job);
        if (job) {
            job->kind = MAIL_CONFIRM;
            snprintf(job->to, sizeof job->to, "%s", email);
            job->message = s && t ? mail_message(m, email, s, t, NULL) : NULL;
            job->first_us = srv_now_us();
        }
        free(s);
        free(t);
        sodium_memzero(token, sizeof token);
        sodium_memzero(link, sizeof link);
        if (!job || !job->message) {
            mail_job_free(job);
            return srv_error_reply(reply, SRV_INTERNAL_STATUS, "internal",
                                   SRV_INTERNAL_MESSAGE);
        }
    }
    if (rc == 0 && je && (fresh || !email[0]))
        rc = m->store->m->mail_address(m->store, account, email, fresh ? hash : NULL, err,
                                       sizeof err);
    if (rc == 0 && jt)
        rc = m->store->m->mail_turn_emails(m->store, account, on, err, sizeof err);
    if (rc < 0) {
        mail_job_free(job);
        srv_log(&m->cfg, "mail: %s", err);
        return srv_error_reply(reply, 500, "store_failed",
                               "the server could not reach its database; try again");
    }
    atomic_fetch_add(&m->generation, 1u);
    if (job) {
        pthread_mutex_lock(&m->lock);
        mail_enqueue_locked(m, job);
        pthread_mutex_unlock(&m->lock);
    }
    return mail_state_reply(m, account, fresh ? 202 : 200, reply);
}

/* A small page in the language: a title, a sentence, two links. */
static char *mail_page(const lang_catalog *lang, int title, int sentence, const char *email,
                       const char *action)
{
    mail_buf b = {0};
    mail_puts(&b, "<!doctype html>\n<html lang=\"");
    mail_puts(&b, lang_catalog_code(lang));
    mail_puts(&b, "\"><head><meta charset=\"utf-8\">"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                  "<link rel=\"stylesheet\" href=\"/css/tabula.css\">"
                  "<style>.mail-page .button{min-height:44px;display:inline-flex;"
                  "align-items:center}</style><title>");
    mail_format(&b, lang, title, 0, NULL, NULL, true);
    mail_puts(&b, " — Tabula</title></head>\n<body><header class=\"topbar\"><a class=\"brand\" "
                  "href=\"/\"><span class=\"word\">Tabula</span></a></header>\n"
                  "<main class=\"page mail-page\" style=\"max-width:40rem\"><h1>");
    mail_format(&b, lang, title, 0, NULL, NULL, true);
    mail_puts(&b, "</h1>\n<p id=\"mail-said\">");
    const char *keys[] = {"email"};
    const char *vals[] = {email ? email : ""};
    mail_format(&b, lang, sentence, 1, keys, vals, true);
    if (action) { /* the page's one button: a POST to `action` does it */
        mail_puts(&b, "</p>\n<form method=\"post\" action=\"");
        mail_put_html(&b, action);
        mail_puts(&b, "\"><button class=\"button primary\" type=\"submit\" id=\"mail-do\">");
        mail_format(&b, lang, W_UNSUB_BUTTON, 0, NULL, NULL, true);
        mail_puts(&b, "</button></form>\n<p>");
    }
    mail_puts(&b, "</p>\n<p><a class=\"button\" href=\"/account.html\">");
    mail_format(&b, lang, W_ACCOUNT, 0, NULL, NULL, true);
    mail_puts(&b, "</a> <a class=\"button\" href=\"/\">");
    mail_format(&b, lang, W_HOME, 0, NULL, NULL, true);
    mail_puts(&b, "</a></p></main></body></html>\n");
    return mail_take(&b);
}

int srv_mail_confirm_page(srv_mailer *m, const char *token, const char *lang, char **reply)
{
    char err[TB_ERR_LEN];
    uint8_t hash[SRV_HASH_LEN];
    int64_t account = 0;
    int rc = 1;
    if (token && mail_confirm_token_live(token)) {
        srv_secret_hash(token, hash);
        rc = m->store->m->mail_confirm(m->store, hash, &account, err, sizeof err);
    }
    srv_mail_account a = {0};
    if (rc == 0 && m->store->m->mail_account(m->store, account, &a, err, sizeof err) == 0)
        lang = a.lang;
    if (rc < 0)
        srv_log(&m->cfg, "mail: %s", err);
    if (rc == 0)
        atomic_fetch_add(&m->generation, 1u);
    *reply = rc == 0 ? mail_page(mail_catalog(m, lang), W_CONFIRMED_TITLE, W_CONFIRMED, a.email, NULL)
                     : mail_page(mail_catalog(m, lang), W_BAD_LINK_TITLE, W_BAD_CONFIRM, NULL, NULL);
    return rc == 0 ? 200 : rc < 0 ? 503 : 404;
}

int srv_mail_unsubscribe_page(srv_mailer *m, const char *token, const char *lang, char **reply)
{
    char err[TB_ERR_LEN];
    uint8_t hash[SRV_HASH_LEN];
    int64_t account = 0;
    int rc = 1;
    if (token && strlen(token) == 43) {
        srv_secret_hash(token, hash);
        rc = m->store->m->mail_unsubscribe(m->store, hash, &account, err, sizeof err);
    }
    srv_mail_account a = {0};
    if (rc == 0 && m->store->m->mail_account(m->store, account, &a, err, sizeof err) == 0)
        lang = a.lang;
    if (rc < 0)
        srv_log(&m->cfg, "mail: %s", err);
    if (rc == 0)
        atomic_fetch_add(&m->generation, 1u);
    *reply = rc == 0 ? mail_page(mail_catalog(m, lang), W_UNSUB_TITLE, W_UNSUB, NULL, NULL)
                     : mail_page(mail_catalog(m, lang), W_BAD_LINK_TITLE, W_BAD_UNSUB, NULL, NULL);
    return rc == 0 ? 200 : rc < 0 ? 503 : 404;
}

int srv_mail_unsubscribe_ask(srv_mailer *m, const char *token, const char *lang, char **reply)
{
    /* the link as it came (its token is base64url, its language a code):
     * the button posts it back; nothing is changed by opening it */
    char action[256];
    const char *code = lang_catalog_code(mail_catalog(m, lang));
    bool plain = token && strlen(token) < 100 && strspn(token, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                               "abcdefghijklmnopqrstuvwxyz"
                                                               "0123456789-_") == strlen(token);
    snprintf(action, sizeof action, "/email/unsubscribe?token=%s&lang=%s", plain ? token : "",
             code);
    *reply = mail_page(mail_catalog(m, lang), W_UNSUB_ASK_TITLE, W_UNSUB_ASK, NULL, action);
    return 200;
}
