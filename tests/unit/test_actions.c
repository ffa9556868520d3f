/*
 * test_actions.c — unit tests of the integer action space and observation
 * tensors (tb_num_actions … tb_observation; docs/python.md): every legal
 * decision of random games of every game and player count has one index in
 * range, distinct decisions have distinct indexes, index → decision → index
 * is the identity over the whole space, the documented sizes hold, and an
 * observation depends only on the seat's view (resampling the secrets the
 * seat cannot see leaves it unchanged) while differing between seats, and
 * tb_observation and tb_observation_update write exactly the tensors of the
 * encoders before the in-place update (obs_reference.c).
 */
#include "tabula.h"

#include "obs_reference.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static void action_space_is_a_bijection(void **unused)
{
    (void)unused;
    for (int gi = 0; gi < tb_game_count(); gi++) {
        const tb_game *g = tb_game_at(gi);
        int size = tb_num_actions(g, tb_game_default_players(g));
        assert_true(size > 0);
        assert_int_equal(tb_num_actions(g, tb_game_max_players(g) + 1), 0);
        for (int a = 0; a < size; a++) {
            tb_move m;
            if (tb_action_to_move(g, a, &m) == 0)
                assert_int_equal(tb_move_to_action(g, m), a);
        }
        tb_move m;
        assert_int_equal(tb_action_to_move(g, size, &m), -1);
        assert_int_equal(tb_action_to_move(g, -1, &m), -1);
    }
    assert_int_equal(tb_num_actions(tb_game_find("clans"), 4), 3660);
    assert_int_equal(tb_num_actions(tb_game_find("arkadia"), 4), 12960);
    assert_int_equal(tb_num_actions(tb_game_find("khronos"), 4), 17050);
}

static void legal_decisions_have_distinct_indexes(void **unused)
{
    (void)unused;
    const int games[] = {12, 60, 6}; /* per player count: arkadia, clans, khronos */
    for (int gi = 0; gi < tb_game_count(); gi++) {
        const tb_game *g = tb_game_at(gi);
        for (int p = tb_game_min_players(g); p <= tb_game_max_players(g); p++) {
            int size = tb_num_actions(g, p);
            unsigned char *seen = calloc((size_t)size, 1);
            for (int seed = 0; seed < games[gi % 3]; seed++) {
                tb_state *s = tb_state_new(g);
                char err[TB_ERR_LEN];
                assert_int_equal(tb_setup(s, p, NULL, (uint64_t)seed, err, sizeof err), 0);
                tb_rng rng;
                tb_rng_seed(&rng, (uint64_t)seed);
                tb_move moves[TB_MAX_MOVES];
                int32_t actions[TB_MAX_MOVES];
                while (!tb_is_over(s)) {
                    int n = tb_legal(s, moves);
                    assert_int_equal(tb_legal_actions(s, actions), n);
                    for (int i = 0; i < n; i++) {
                        int a = actions[i];
                        assert_true(a >= 0 && a < size);
                        assert_int_equal(tb_move_to_action(g, moves[i]), a);
                        tb_move back;
                        assert_int_equal(tb_action_to_move(g, a, &back), 0);
                        assert_int_equal(back, moves[i]);
                        assert_int_equal(seen[a], 0); /* distinct within the list */
                        seen[a] = 1;
                    }
                    for (int i = 0; i < n; i++)
                        seen[actions[i]] = 0;
                    tb_apply(s, moves[tb_rng_below(&rng, (uint32_t)n)]);
                }
                tb_state_free(s);
            }
            free(seen);
        }
    }
}

static void observations_show_only_the_view(void **unused)
{
    (void)unused;
    for (int gi = 0; gi < tb_game_count(); gi++) {
        const tb_game *g = tb_game_at(gi);
        for (int p = tb_game_min_players(g); p <= tb_game_max_players(g); p++) {
            int size = tb_observation_size(g, p);
            assert_true(size > 0);
            float *a = malloc((size_t)size * sizeof *a), *b = malloc((size_t)size * sizeof *b);
            for (int seed = 0; seed < 20; seed++) {
                tb_state *s = tb_state_new(g);
                char err[TB_ERR_LEN];
                assert_int_equal(tb_setup(s, p, NULL, (uint64_t)seed, err, sizeof err), 0);
                tb_rng rng;
                tb_rng_seed(&rng, (uint64_t)seed + 99);
                for (int step = 0; !tb_is_over(s); step++) {
                    if (step % 7 == 0) {
                        int differ = 0;
                        for (int seat = 0; seat < p; seat++) {
                            assert_int_equal(tb_observation(s, seat, a), size);
                            tb_state *r = tb_state_dup(s);
                            tb_resample(r, seat, &rng);
                            char *v1 = tb_view_json(s, seat), *v2 = tb_view_json(r, seat);
                            assert_string_equal(v1, v2);
                            free(v1);
                            free(v2);
                            assert_int_equal(tb_observation(r, seat, b), size);
                            assert_memory_equal(a, b, (size_t)size * sizeof *a);
                            if (seat > 0) {
                                tb_observation(s, 0, b);
                                differ |= memcmp(a, b, (size_t)size * sizeof *a) != 0;
                            }
                            tb_state_free(r);
                        }
                        assert_true(differ); /* each seat sees itself */
                    }
                    tb_apply(s, tb_random_move(s, &rng));
                }
                tb_state_free(s);
            }
            free(a);
            free(b);
        }
    }
    assert_int_equal(tb_observation_size(tb_game_find("clans"), 3), 527);
    assert_int_equal(tb_observation_size(tb_game_find("arkadia"), 3), 3091);
    assert_int_equal(tb_observation_size(tb_game_find("khronos"), 3), 26893);
}

/* The reference encoder of game g (obs_reference.c). */
static void (*reference_encoder(const tb_game *g))(const tb_state *, int, float *)
{
    const char *name = tb_game_name(g);
    return strcmp(name, "clans") == 0     ? ref_clans_observation
           : strcmp(name, "arkadia") == 0 ? ref_ark_observation
                                          : ref_khronos_observation;
}

/* Over random positions of every game and player count, from every seat:
 * tb_observation writes what the reference encoder writes, and so does
 * tb_observation_update and tb_observation_update_batch, each seat's buffer
 * and track kept from one position to the next, across new deals, player
 * counts and games (so the clearing of what changed, the writing of only what
 * changed, the skipped board-only entries and the full clears when the game
 * or count changes are all checked). */
static void observations_match_the_reference(void **unused)
{
    (void)unused;
    int max = 0;
    for (int gi = 0; gi < tb_game_count(); gi++) {
        const tb_game *g = tb_game_at(gi);
        if (tb_observation_size(g, tb_game_default_players(g)) > max)
            max = tb_observation_size(g, tb_game_default_players(g));
    }
    size_t bytes = (size_t)max * sizeof(float);
    float *ref = malloc(bytes), *fresh = malloc(bytes), *kept[TB_MAX_SEATS], *batch[TB_MAX_SEATS];
    tb_obs_track *track[TB_MAX_SEATS], *batch_track[TB_MAX_SEATS];
    for (int seat = 0; seat < TB_MAX_SEATS; seat++) {
        kept[seat] = calloc(1, bytes);
        batch[seat] = calloc(1, bytes);
        track[seat] = tb_obs_track_new();
        batch_track[seat] = tb_obs_track_new();
        assert_true(track[seat] && batch_track[seat]);
    }
    long positions = 0;
    for (int gi = 0; gi < tb_game_count(); gi++) {
        const tb_game *g = tb_game_at(gi);
        void (*encode)(const tb_state *, int, float *) = reference_encoder(g);
        for (int p = tb_game_min_players(g); p <= tb_game_max_players(g); p++) {
            int size = tb_observation_size(g, p);
            for (int seed = 0; seed < 4; seed++) {
                tb_state *s = tb_state_new(g);
                char err[TB_ERR_LEN];
                assert_int_equal(tb_setup(s, p, NULL, (uint64_t)seed + 500, err, sizeof err), 0);
                tb_rng rng;
                tb_rng_seed(&rng, (uint64_t)seed + 7);
                for (;;) {
                    for (int seat = 0; seat < p; seat++) {
                        memset(ref, 0, bytes);
                        encode(s, seat, ref);
                        memset(fresh, 0xff, bytes); /* tb_observation clears what it writes into */
                        assert_int_equal(tb_observation(s, seat, fresh), size);
                        assert_memory_equal(ref, fresh, (size_t)size * sizeof *ref);
                        assert_int_equal(tb_observation_update(s, seat, kept[seat], track[seat]), size);
                        assert_memory_equal(ref, kept[seat], (size_t)size * sizeof *ref);
                        const tb_state *one = s;
                        assert_int_equal(tb_observation_update_batch(&one, &seat, 1, batch[seat], (size_t)max,
                                                                     &batch_track[seat]), 0);
                        assert_memory_equal(ref, batch[seat], (size_t)size * sizeof *ref);
                        positions++;
                    }
                    if (tb_is_over(s))
                        break;
                    tb_apply(s, tb_random_move(s, &rng));
                }
                tb_state_free(s);
            }
        }
    }
    assert_true(positions > 10000);
    for (int seat = 0; seat < TB_MAX_SEATS; seat++) {
        free(kept[seat]);
        free(batch[seat]);
        tb_obs_track_free(track[seat]);
        tb_obs_track_free(batch_track[seat]);
    }
    free(ref);
    free(fresh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(action_space_is_a_bijection),
        cmocka_unit_test(legal_decisions_have_distinct_indexes),
        cmocka_unit_test(observations_show_only_the_view),
        cmocka_unit_test(observations_match_the_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
