/*
 * test_actions.c — unit tests of the integer action space and observation
 * tensors (tb_num_actions … tb_observation; docs/python.md): every legal
 * decision of random games of every game and player count has one index in
 * range, distinct decisions have distinct indexes, index → decision → index
 * is the identity over the whole space, the documented sizes hold, and an
 * observation depends only on the seat's view (resampling the secrets the
 * seat cannot see leaves it unchanged) while differing between seats.
 */
#include "tabula.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(action_space_is_a_bijection),
        cmocka_unit_test(legal_decisions_have_distinct_indexes),
        cmocka_unit_test(observations_show_only_the_view),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
