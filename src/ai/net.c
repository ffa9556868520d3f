/*
 * net.c — a small policy-value network evaluated in C, for the search
 * (ismcts with budget->net: the policy as the root's prior, the value at
 * the leaves; docs/research.md, "Network files").
 *
 * The network is a multilayer perceptron: the observation (tb_observation)
 * through hidden layers with ReLU, then two heads: policy logits over the
 * game's action space and one value, squashed by the logistic function,
 * which estimates the return of the seat whose observation it was.  The
 * file is text, so it goes through the one capped reader of files a user
 * hands in (tb_file_read):
 *
 *   tabula-net 1
 *   game clans players 2 observation 527 actions 3660
 *   hidden 2 256 256                (how many hidden layers, their widths)
 *   then every number of every layer (hidden layers in order, then the
 *   policy head, then the value head): its weights, one row per output
 *   (inputs in order), then its biases; separated by white space.
 *
 * Invariants: a parsed network is read-only (threads share it); its shapes
 * chain (observation -> hidden... -> actions and 1) and match the header;
 * every number is finite; evaluation allocates nothing (the caller gives
 * room: tb_net_scratch floats).
 */
#include "tabula.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NET_MAX_LAYERS 8
#define NET_MAX_WIDTH 65536

struct tb_net {
    char game[32];
    int players, inputs, actions;
    int hidden_count;
    int width[NET_MAX_LAYERS + 1]; /* width[0] = inputs, then each hidden layer */
    float *weights[NET_MAX_LAYERS + 2]; /* hidden layers, policy head, value head */
    float *bias[NET_MAX_LAYERS + 2];
    float *storage;
};

typedef struct net_reader {
    const char *p, *end;
    int line;
} net_reader;

static void net_skip_space(net_reader *r)
{
    while (r->p < r->end && isspace((unsigned char)*r->p)) {
        if (*r->p == '\n')
            r->line++;
        r->p++;
    }
}

/* The next word (letters, digits, signs, dots) into buf; 0 or -1 at the end. */
static int net_word(net_reader *r, char *buf, size_t len)
{
    net_skip_space(r);
    size_t n = 0;
    while (r->p < r->end && !isspace((unsigned char)*r->p)) {
        if (n + 1 >= len)
            return -1;
        buf[n++] = *r->p++;
    }
    buf[n] = '\0';
    return n ? 0 : -1;
}

static int net_expect(net_reader *r, const char *word, char *err, size_t errlen)
{
    char buf[64];
    if (net_word(r, buf, sizeof buf) != 0 || strcmp(buf, word) != 0) {
        snprintf(err, errlen, "line %d: expected '%s'", r->line, word);
        return -1;
    }
    return 0;
}

static int net_int(net_reader *r, const char *what, long lo, long hi, int *out, char *err,
                   size_t errlen)
{
    char buf[64], *end;
    if (net_word(r, buf, sizeof buf) != 0) {
        snprintf(err, errlen, "line %d: %s is missing", r->line, what);
        return -1;
    }
    errno = 0;
    long v = strtol(buf, &end, 10);
    if (*end || errno || v < lo || v > hi) {
        snprintf(err, errlen, "line %d: %s must be a whole number from %ld to %ld, not '%s'",
                 r->line, what, lo, hi, buf);
        return -1;
    }
    *out = (int)v;
    return 0;
}

tb_net *tb_net_parse(const tb_game *game, const char *text, size_t len, char *err, size_t errlen)
{
    net_reader r = {text, text + len, 1};
    tb_net *net = calloc(1, sizeof *net);
    if (!net) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    char name[64];
    int version;
    if (net_expect(&r, "tabula-net", err, errlen) != 0 ||
        net_int(&r, "the version", 1, 1, &version, err, errlen) != 0 ||
        net_expect(&r, "game", err, errlen) != 0)
        goto fail;
    if (net_word(&r, name, sizeof name) != 0 || strlen(name) >= sizeof net->game) {
        snprintf(err, errlen, "line %d: the game's name is missing", r.line);
        goto fail;
    }
    memcpy(net->game, name, strlen(name) + 1); /* shorter than net->game: checked above */
    if (game && strcmp(name, tb_game_name(game)) != 0) {
        snprintf(err, errlen, "the network is for %s, not %s", name, tb_game_name(game));
        goto fail;
    }
    if (net_expect(&r, "players", err, errlen) != 0 ||
        net_int(&r, "players", 1, TB_MAX_SEATS, &net->players, err, errlen) != 0 ||
        net_expect(&r, "observation", err, errlen) != 0 ||
        net_int(&r, "the observation size", 1, NET_MAX_WIDTH, &net->inputs, err, errlen) != 0 ||
        net_expect(&r, "actions", err, errlen) != 0 ||
        net_int(&r, "the number of actions", 1, NET_MAX_WIDTH, &net->actions, err, errlen) != 0)
        goto fail;
    if (game && (tb_observation_size(game, net->players) != net->inputs ||
                 tb_num_actions(game, net->players) != net->actions)) {
        snprintf(err, errlen, "the network's observation (%d) or actions (%d) are not %s's "
                 "for %d players (%d, %d)", net->inputs, net->actions, tb_game_name(game),
                 net->players, tb_observation_size(game, net->players),
                 tb_num_actions(game, net->players));
        goto fail;
    }
    if (net_expect(&r, "hidden", err, errlen) != 0)
        goto fail;
    net->width[0] = net->inputs;
    if (net_int(&r, "the number of hidden layers", 0, NET_MAX_LAYERS, &net->hidden_count, err,
                errlen) != 0)
        goto fail;
    for (int k = 1; k <= net->hidden_count; k++)
        if (net_int(&r, "a hidden layer's width", 1, NET_MAX_WIDTH, &net->width[k], err,
                    errlen) != 0)
            goto fail;
    size_t total = 0;
    int last = net->width[net->hidden_count];
    for (int k = 1; k <= net->hidden_count; k++)
        total += (size_t)net->width[k] * (size_t)(net->width[k - 1] + 1);
    total += (size_t)net->actions * (size_t)(last + 1) + (size_t)(last + 1);
    net->storage = malloc(total * sizeof *net->storage);
    if (!net->storage) {
        snprintf(err, errlen, "out of memory for %zu numbers", total);
        goto fail;
    }
    float *at = net->storage;
    int layers = net->hidden_count + 2;
    for (int k = 0; k < layers; k++) {
        int in = k < net->hidden_count ? net->width[k] : last;
        int out = k < net->hidden_count ? net->width[k + 1] : k == net->hidden_count ? net->actions
                                                                                      : 1;
        net->weights[k] = at;
        at += (size_t)in * (size_t)out;
        net->bias[k] = at;
        at += out;
    }
    for (size_t i = 0; i < total; i++) {
        net_skip_space(&r);
        if (r.p >= r.end) {
            snprintf(err, errlen, "line %d: the file ends after %zu of its %zu numbers", r.line,
                     i, total);
            goto fail;
        }
        char *end;
        errno = 0;
        float v = strtof(r.p, &end);
        if (end == r.p || (end < r.end && !isspace((unsigned char)*end)) || !isfinite(v)) {
            snprintf(err, errlen, "line %d: not a finite number", r.line);
            goto fail;
        }
        net->storage[i] = v;
        r.p = end;
    }
    net_skip_space(&r);
    if (r.p < r.end) {
        snprintf(err, errlen, "line %d: more numbers than the layers hold (%zu)", r.line, total);
        goto fail;
    }
    return net;
fail:
    tb_net_free(net);
    return NULL;
}

void tb_net_free(tb_net *net)
{
    if (!net)
        return;
    free(net->storage);
    free(net);
}

int tb_net_players(const tb_net *net)
{
    return net->players;
}

bool tb_net_fits(const tb_net *net, const tb_game *game, int players)
{
    return net && game && strcmp(net->game, tb_game_name(game)) == 0 && net->players == players &&
           net->inputs == tb_observation_size(game, players) &&
           net->actions == tb_num_actions(game, players);
}

int tb_net_scratch(const tb_net *net)
{
    int most = net->inputs;
    for (int k = 1; k <= net->hidden_count; k++)
        if (net->width[k] > most)
            most = net->width[k];
    return 2 * most;
}

/* out = relu(W x + b) (relu when `relu`), W out x in row-major. */
static void net_layer(const float *w, const float *b, const float *x, int in, int out,
                      float *y, int relu)
{
    for (int o = 0; o < out; o++) {
        const float *row = w + (size_t)o * (size_t)in;
        float s = b[o];
        for (int i = 0; i < in; i++)
            s += row[i] * x[i];
        y[o] = relu && s < 0 ? 0 : s;
    }
}

/* The last hidden layer's activations (in scratch), from the observation. */
static const float *net_trunk(const tb_net *net, const float *obs, float *scratch)
{
    int most = tb_net_scratch(net) / 2;
    float *a = scratch, *b = scratch + most;
    const float *x = obs;
    for (int k = 0; k < net->hidden_count; k++) {
        float *y = k % 2 ? b : a;
        net_layer(net->weights[k], net->bias[k], x, net->width[k], net->width[k + 1], y, 1);
        x = y;
    }
    return x;
}

double tb_net_value(const tb_net *net, const float *obs, float *scratch)
{
    const float *h = net_trunk(net, obs, scratch);
    int last = net->width[net->hidden_count], v = net->hidden_count + 1;
    float z;
    net_layer(net->weights[v], net->bias[v], h, last, 1, &z, 0);
    return 1.0 / (1.0 + exp(-(double)z));
}

int tb_net_policy(const tb_net *net, const float *obs, const int32_t *actions, int n,
                  float *probs, float *scratch)
{
    const float *h = net_trunk(net, obs, scratch);
    int last = net->width[net->hidden_count], p = net->hidden_count;
    double most = -INFINITY;
    for (int i = 0; i < n; i++) {
        if (actions[i] < 0 || actions[i] >= net->actions)
            return -1;
        const float *row = net->weights[p] + (size_t)actions[i] * (size_t)last;
        float s = net->bias[p][actions[i]];
        for (int k = 0; k < last; k++)
            s += row[k] * h[k];
        probs[i] = s;
        if (s > most)
            most = s;
    }
    double sum = 0;
    for (int i = 0; i < n; i++) {
        probs[i] = (float)exp((double)probs[i] - most);
        sum += probs[i];
    }
    for (int i = 0; i < n; i++)
        probs[i] = (float)(probs[i] / sum);
    return 0;
}
