/*
 * base.c — the server's clocks, its log, game ids, error messages and replies,
 * JSON texts and seat names (base.h).  No state: every call stands alone.
 */
#include "base.h"
#include "core/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t srv_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void srv_iso_now(char buf[SRV_TIME_LEN])
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char base[24];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, SRV_TIME_LEN, "%.20s.%03dZ", base, (int)(ts.tv_nsec / 1000000L) % 1000);
}

void srv_log(const srv_config *cfg, const char *fmt, ...)
{
    if (cfg && cfg->quiet)
        return;
    char when[SRV_TIME_LEN];
    srv_iso_now(when);
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s %s\n", when, line);
}

bool srv_valid_id(const char *id)
{
    if (!id || strlen(id) != SRV_ID_LEN)
        return false;
    for (const char *p = id; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
            return false;
    return true;
}

char *srv_internal_error(const char *what)
{
    srv_log(NULL, "could not build %s (out of memory?): that one request got an error, "
                  "nothing changed", what);
    return strdup(SRV_INTERNAL_ERROR_JSON);
}

char *srv_error_message(const json_t *id, const char *code, const char *fmt, va_list ap)
{
    char text[600];
    vsnprintf(text, sizeof text, fmt, ap);
    tb__utf8_repair(text); /* whatever it quotes, the message is valid JSON */
    json_t *msg = json_pack("{s:s,s:s,s:s}", "type", "error", "code", code, "message", text);
    if (msg && id)
        json_object_set(msg, "id", (json_t *)id);
    char *out = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
    json_decref(msg);
    return out ? out : srv_internal_error("an error message");
}

char *srv_json_text(json_t *j)
{
    char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!s)
        s = srv_internal_error("a message");
    return s;
}

int srv_error_reply(char **reply, int status, const char *code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tb__utf8_repair(msg); /* whatever it quotes, the reply is valid JSON */
    json_t *j = json_pack("{s:{s:s,s:s}}", "error", "code", code, "message", msg);
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!text) { /* no memory for this reply: the one that says so */
        *reply = srv_internal_error("an error reply");
        return SRV_INTERNAL_STATUS;
    }
    *reply = text;
    return status;
}

bool srv_valid_name(const char *name)
{
    size_t len = strlen(name);
    if (len == 0 || len >= SRV_NAME_LEN)
        return false;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return false;
    return true;
}
