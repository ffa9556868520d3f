/*
 * _tabula.c — the CPython extension under `import tabula` (docs/python.md):
 * the Board type (a board file read at run time), the Game type (one state
 * with its undo history), the VectorGames type (n states stepped together in
 * C) and module functions over include/tabula.h.
 *
 * Invariants: only the public C API is used; a call that fails raises a
 * Python exception carrying the engine's message and changes nothing (a batch
 * step checks every action before applying any); the GIL is released around
 * searches and batched stepping, which touch only states this object owns
 * (a search works on its own copy); no global mutable state beyond the
 * module's exception type, set once at import, and each game's tuple of
 * action ints, set once at first use; a VectorGames's kept observations and
 * masks are what its games showed at the last call that wrote them (each
 * call rewrites them; copy=False hands them out read-only); every Game or
 * VectorGames on a
 * Board holds a reference to it, so its data outlives every state set up on it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include "tabula.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static PyObject *tabula_error; /* tabula.Error, a ValueError */

static uint64_t tabula_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static PyObject *tabula_fail(const char *msg)
{
    PyErr_SetString(tabula_error, msg);
    return NULL;
}

static const tb_game *tabula_find_game(const char *name)
{
    const tb_game *g = tb_game_find(name);
    if (!g) {
        char known[128] = "";
        for (int i = 0; i < tb_game_count(); i++) {
            size_t used = strlen(known);
            snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", tb_game_name(tb_game_at(i)));
        }
        PyErr_Format(tabula_error, "unknown game '%s' (games: %s)", name, known);
    }
    return g;
}

/* Reads a dict of options {key: value} (values through str()) into opts. */
static int tabula_options(PyObject *dict, tb_options *opts)
{
    tb_options_clear(opts);
    if (!dict || dict == Py_None)
        return 0;
    if (!PyDict_Check(dict)) {
        PyErr_SetString(PyExc_TypeError, "options must be a dict of KEY: VALUE");
        return -1;
    }
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    char err[TB_ERR_LEN];
    while (PyDict_Next(dict, &pos, &key, &value)) {
        PyObject *ks = PyObject_Str(key), *vs = PyObject_Str(value);
        int rc = -1;
        if (ks && vs) {
            const char *k = PyUnicode_AsUTF8(ks), *v = PyUnicode_AsUTF8(vs);
            if (k && v) {
                rc = tb_options_set(opts, k, v, err, sizeof err);
                if (rc)
                    PyErr_SetString(tabula_error, err);
            }
        }
        Py_XDECREF(ks);
        Py_XDECREF(vs);
        if (rc)
            return -1;
    }
    return 0;
}

/* ----------------------------------------------------------------- Board */

/* A board and its components read from a data file (docs/data-format.md):
 * its own tb_data_set holds it (so that states naming it can be loaded). */
typedef struct {
    PyObject_HEAD
    tb_data_set *set;
    const tb_data *data; /* in set */
} BoardObject;

static PyTypeObject BoardType;

static void board_dealloc(BoardObject *self)
{
    tb_data_set_free(self->set);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Puts read data d into a Board not yet read (d is the Board's, or freed). */
static int board_adopt(BoardObject *self, tb_data *d)
{
    char err[TB_ERR_LEN];
    tb_data_set *set = tb_data_set_new();
    if (!set) {
        tb_data_free(d);
        PyErr_NoMemory();
        return -1;
    }
    if (tb_data_set_add(set, d, err, sizeof err)) {
        tb_data_set_free(set);
        PyErr_SetString(tabula_error, err);
        return -1;
    }
    self->set = set;
    self->data = tb_data_set_find(set, tb_data_game(d), tb_data_name(d));
    return 0;
}

/* Board(game, name, text, where): where names the text in messages. */
static int board_init(BoardObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"game", "name", "text", "where", NULL};
    const char *game, *name, *where = "board";
    const char *text;
    Py_ssize_t len;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sss#|s", kwlist, &game, &name, &text, &len, &where))
        return -1;
    if (self->set) {
        PyErr_SetString(tabula_error, "the Board is already read");
        return -1;
    }
    const tb_game *g = tabula_find_game(game);
    if (!g)
        return -1;
    char err[TB_ERR_LEN];
    if (!tb_data_builtin(g)) {
        PyErr_Format(tabula_error, "%s has no boards to choose from", tb_game_title(g));
        return -1;
    }
    if (!tb_data_name_ok(name) || strcmp(name, TB_DATA_DEFAULT) == 0) {
        PyErr_Format(tabula_error, "'%s' cannot name a board: at most %d letters, digits, '-' or '_', "
                     "and not '%s' (the built-in board)", name, TB_DATA_NAME - 1, TB_DATA_DEFAULT);
        return -1;
    }
    tb_data *d = tb_data_read(g, name, text, (size_t)len, where, err, sizeof err);
    if (!d) {
        PyErr_SetString(tabula_error, err);
        return -1;
    }
    return board_adopt(self, d);
}

/* read_board(game, path): the board file at path (str, bytes or a path-like),
 * read by the library's one capped reader and named after the file
 * (tb_data_read_file).  A file that cannot be opened raises the OSError of
 * its errno (FileNotFoundError ...); a folder, a device, a FIFO, a file over
 * 64 MiB, text that is not UTF-8 or a bad board raise tabula.Error. */
static PyObject *mod_read_board(PyObject *mod, PyObject *args)
{
    (void)mod;
    const char *game;
    PyObject *given, *path; /* the path as given (for OSError), its bytes */
    if (!PyArg_ParseTuple(args, "sO", &game, &given) || !PyUnicode_FSConverter(given, &path))
        return NULL;
    const tb_game *g = tabula_find_game(game);
    if (!g) {
        Py_DECREF(path);
        return NULL;
    }
    if (!tb_data_builtin(g)) {
        Py_DECREF(path);
        return PyErr_Format(tabula_error, "%s has no boards to choose from", tb_game_title(g));
    }
    char err[TB_ERR_LEN];
    tb_data *d;
    int code;
    Py_BEGIN_ALLOW_THREADS
    d = tb_data_read_file(g, PyBytes_AS_STRING(path), err, sizeof err);
    code = errno;
    Py_END_ALLOW_THREADS
    if (!d) {
        if (code == ENOMEM)
            PyErr_NoMemory();
        else if (code && code != EISDIR && code != EINVAL && code != EFBIG && code != EILSEQ) {
            errno = code;
            PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, given);
        } else
            PyErr_SetString(tabula_error, err);
        Py_DECREF(path);
        return NULL;
    }
    Py_DECREF(path);
    BoardObject *b = (BoardObject *)BoardType.tp_alloc(&BoardType, 0);
    if (!b) {
        tb_data_free(d);
        return NULL;
    }
    if (board_adopt(b, d)) {
        Py_DECREF(b);
        return NULL;
    }
    return (PyObject *)b;
}

/* The board of a `board` argument (None: the built-in one, NULL data and no
 * error); -1 with the Python error set when it is no Board of this game. */
static int tabula_board_arg(PyObject *board, const tb_game *g, const tb_data **data)
{
    *data = NULL;
    if (!board || board == Py_None)
        return 0;
    if (!PyObject_TypeCheck(board, &BoardType)) {
        PyErr_SetString(PyExc_TypeError, "board must be a tabula.Board (tabula.read_board)");
        return -1;
    }
    const BoardObject *b = (const BoardObject *)board;
    if (!b->data) {
        PyErr_SetString(tabula_error, "the Board was never read");
        return -1;
    }
    if (tb_data_game(b->data) != g) {
        PyErr_Format(tabula_error, "the board '%s' is a %s board, not one of %s", tb_data_name(b->data),
                     tb_game_title(tb_data_game(b->data)), tb_game_title(g));
        return -1;
    }
    *data = b->data;
    return 0;
}

static PyObject *board_get(BoardObject *self, void *which)
{
    const char *w = which;
    if (!self->data)
        return tabula_fail("the Board was never read");
    return PyUnicode_FromString(w[0] == 'g' ? tb_game_name(tb_data_game(self->data))
                                : w[0] == 'n' ? tb_data_name(self->data) : tb_data_hash(self->data));
}

static PyObject *board_repr(BoardObject *self)
{
    if (!self->data)
        return PyUnicode_FromString("<tabula.Board (not read)>");
    return PyUnicode_FromFormat("<tabula.Board %s '%s' %s>", tb_game_name(tb_data_game(self->data)),
                                tb_data_name(self->data), tb_data_hash(self->data));
}

static PyGetSetDef board_getset[] = {
    {"game", (getter)board_get, NULL, "the game the board is for", "g"},
    {"name", (getter)board_get, NULL, "the board's name (records and states name it)", "n"},
    {"hash", (getter)board_get, NULL, "the hash of the board's content (16 hex digits)", "h"},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject BoardType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tabula._tabula.Board",
    .tp_basicsize = sizeof(BoardObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A board and its components read from a data file (tabula.read_board).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)board_init,
    .tp_dealloc = (destructor)board_dealloc,
    .tp_repr = (reprfunc)board_repr,
    .tp_getset = board_getset,
};

/* ------------------------------------------------------------------ Game */

typedef struct {
    PyObject_HEAD
    tb_state *state;
    tb_state **history; /* buffers; the first `depth` hold earlier states */
    tb_move *moves;     /* moves[k]: the decision made in history[k] */
    int depth, cap;
    PyObject *board;    /* the Board the states are on, or NULL: the built-in one */
} GameObject;

static PyTypeObject GameType;

static void game_dealloc(GameObject *self)
{
    for (int i = 0; i < self->cap; i++)
        tb_state_free(self->history[i]);
    free(self->history);
    free(self->moves);
    tb_state_free(self->state);
    Py_XDECREF(self->board);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* A Game owning state s (NULL: out of memory), on `board` (a Board or NULL). */
static GameObject *game_wrap(tb_state *s, PyObject *board)
{
    GameObject *g = s ? PyObject_New(GameObject, &GameType) : NULL;
    if (!g) {
        tb_state_free(s);
        return (GameObject *)PyErr_NoMemory();
    }
    g->state = s;
    g->history = NULL;
    g->moves = NULL;
    g->depth = g->cap = 0;
    g->board = board && board != Py_None ? board : NULL;
    Py_XINCREF(g->board);
    return g;
}

/* Keeps the position before decision `m` (and `m`) for undo and for the
 * inference of genmove. */
static int game_push(GameObject *self, tb_move m)
{
    if (self->depth == self->cap) {
        int cap = self->cap ? self->cap * 2 : 32;
        tb_state **h = realloc(self->history, (size_t)cap * sizeof *h);
        if (!h) {
            PyErr_NoMemory();
            return -1;
        }
        for (int i = self->cap; i < cap; i++)
            h[i] = NULL;
        self->history = h;
        tb_move *mv = realloc(self->moves, (size_t)cap * sizeof *mv);
        if (!mv) {
            PyErr_NoMemory();
            return -1; /* history grew, cap did not: the next push tries again */
        }
        self->moves = mv;
        self->cap = cap;
    }
    self->moves[self->depth] = m;
    if (!self->history[self->depth])
        self->history[self->depth] = tb_state_dup(self->state);
    else
        tb_state_copy(self->history[self->depth], self->state);
    self->depth++;
    return 0;
}

static PyObject *game_new_game(PyObject *mod, PyObject *args, PyObject *kw)
{
    (void)mod;
    static char *kwlist[] = {"game", "players", "seed", "options", "board", NULL};
    const char *name;
    int players = 0;
    unsigned long long seed = 0;
    PyObject *options = NULL, *board = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s|iKOO", kwlist, &name, &players, &seed, &options, &board))
        return NULL;
    const tb_game *g = tabula_find_game(name);
    if (!g)
        return NULL;
    tb_options opts;
    const tb_data *data;
    if (tabula_options(options, &opts) || tabula_board_arg(board, g, &data))
        return NULL;
    if (!players)
        players = tb_game_default_players(g);
    tb_state *s = tb_state_new(g);
    if (!s)
        return PyErr_NoMemory();
    char err[TB_ERR_LEN];
    if (tb_setup_data(s, data, players, &opts, seed, err, sizeof err)) {
        tb_state_free(s);
        return tabula_fail(err);
    }
    return (PyObject *)game_wrap(s, board);
}

/* A state from the JSON text of Game.state() (tabula.load and Game.load), on
 * the built-in board or `board` (a Board or NULL); NULL with the Python error
 * set when the text is not one, or names another board. */
static tb_state *tabula_load_state(PyObject *arg, PyObject *board)
{
    const char *json = PyUnicode_AsUTF8(arg);
    if (!json)
        return NULL;
    if (board && board != Py_None && !PyObject_TypeCheck(board, &BoardType)) {
        PyErr_SetString(PyExc_TypeError, "board must be a tabula.Board (tabula.read_board)");
        return NULL;
    }
    const tb_data_set *set = board && board != Py_None ? ((const BoardObject *)board)->set : NULL;
    char err[TB_ERR_LEN];
    tb_state *s = tb_state_load_in(json, set, err, sizeof err);
    if (!s)
        PyErr_Format(tabula_error, "bad state: %s", err);
    return s;
}

static PyObject *game_load(PyObject *mod, PyObject *args, PyObject *kw)
{
    (void)mod;
    static char *kwlist[] = {"json", "board", NULL};
    PyObject *json, *board = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "U|O", kwlist, &json, &board))
        return NULL;
    tb_state *s = tabula_load_state(json, board);
    if (!s)
        return NULL;
    /* a state on the built-in board keeps no reference to `board` */
    return (PyObject *)game_wrap(s, tb_state_data(s) && !tb_data_is_builtin(tb_state_data(s)) ? board : NULL);
}

/* A decision's text in the position s, as a Python string. */
static PyObject *tabula_move_text(const tb_state *s, tb_move m)
{
    char t[TB_MOVE_TEXT];
    tb_move_to_text(s, m, t, sizeof t);
    return PyUnicode_FromString(t);
}

static PyObject *game_legal(GameObject *self, PyObject *unused)
{
    (void)unused;
    tb_move moves[TB_MAX_MOVES];
    int n = tb_legal(self->state, moves);
    PyObject *list = PyList_New(n);
    if (!list)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *str = tabula_move_text(self->state, moves[i]);
        if (!str) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, str);
    }
    return list;
}

/* A new one-dimensional int64 array of n items, *data its items (NULL with
 * the Python error set when it cannot be made). */
static PyObject *tabula_int64_array(npy_intp n, int64_t **data)
{
    PyObject *arr = PyArray_SimpleNew(1, &n, NPY_INT64);
    if (arr)
        *data = PyArray_DATA((PyArrayObject *)arr);
    return arr;
}

static PyObject *game_legal_actions(GameObject *self, PyObject *unused)
{
    (void)unused;
    int32_t actions[TB_MAX_MOVES];
    npy_intp n = tb_legal_actions(self->state, actions);
    int64_t *d;
    PyObject *arr = tabula_int64_array(n, &d);
    if (!arr)
        return NULL;
    for (npy_intp i = 0; i < n; i++)
        d[i] = actions[i];
    return arr;
}

/* The int objects 0 .. num_actions - 1 of game k (tb_game_at(k)) as a tuple,
 * made at the first call and kept for the module's life: a list of legal
 * actions then costs a reference per item, not a new int. */
#define TABULA_MAX_GAMES 16
static PyObject *tabula_action_ints[TABULA_MAX_GAMES];

static PyObject *tabula_action_ints_of(const tb_state *s)
{
    const tb_game *g = tb_state_game(s);
    int k = 0;
    while (k < tb_game_count() && tb_game_at(k) != g)
        k++;
    if (k >= TABULA_MAX_GAMES)
        return NULL;
    if (!tabula_action_ints[k]) {
        int n = tb_num_actions(g, tb_players(s));
        PyObject *t = PyTuple_New(n);
        for (int i = 0; t && i < n; i++) {
            PyObject *a = PyLong_FromLong(i);
            if (!a) {
                Py_CLEAR(t);
                break;
            }
            PyTuple_SET_ITEM(t, i, a);
        }
        tabula_action_ints[k] = t;
    }
    return tabula_action_ints[k];
}

/* The legal actions as a Python list of ints, built in one pass (what
 * tabula.spiel's legal_actions returns; no NumPy array to convert). */
static PyObject *game_legal_actions_list(GameObject *self, PyObject *unused)
{
    (void)unused;
    int32_t actions[TB_MAX_MOVES];
    int n = tb_legal_actions(self->state, actions);
    PyObject *ints = tabula_action_ints_of(self->state);
    if (!ints && PyErr_Occurred())
        return NULL;
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; i++) {
        PyObject *a;
        if (ints && actions[i] >= 0 && actions[i] < PyTuple_GET_SIZE(ints)) {
            a = PyTuple_GET_ITEM(ints, actions[i]);
            Py_INCREF(a);
        } else if (!(a = PyLong_FromLong(actions[i]))) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, a);
    }
    return list;
}

/* The decision an action index or a text names, checked legal. */
static int game_parse(GameObject *self, PyObject *arg, tb_move *out)
{
    char err[TB_ERR_LEN];
    if (PyLong_Check(arg)) {
        long a = PyLong_AsLong(arg);
        if (a == -1 && PyErr_Occurred())
            return -1;
        const tb_game *g = tb_state_game(self->state);
        if (a < 0 || a > INT32_MAX || tb_action_to_move(g, (int)a, out) != 0) {
            PyErr_Format(tabula_error, "illegal move: %ld is no action of %s (0 to %d)", a,
                         tb_game_name(g), tb_num_actions(g, tb_players(self->state)) - 1);
            return -1;
        }
        if (tb_is_over(self->state)) {
            PyErr_SetString(tabula_error, "illegal move: the game is over");
            return -1;
        }
        if (!tb_is_legal(self->state, *out)) {
            char t[TB_MOVE_TEXT];
            tb_move_to_text(self->state, *out, t, sizeof t);
            PyErr_Format(tabula_error, "illegal move: action %ld (%s) is not legal now", a, t);
            return -1;
        }
        return 0;
    }
    const char *text = PyUnicode_AsUTF8(arg);
    if (!text)
        return -1;
    if (tb_text_to_move(self->state, text, out, err, sizeof err)) {
        if (strncmp(err, "illegal move", 12) == 0)
            PyErr_SetString(tabula_error, err);
        else
            PyErr_Format(tabula_error, "illegal move: %s", err);
        return -1;
    }
    return 0;
}

static PyObject *game_play(GameObject *self, PyObject *arg)
{
    tb_move m;
    if (game_parse(self, arg, &m) || game_push(self, m))
        return NULL;
    tb_apply(self->state, m);
    Py_RETURN_NONE;
}

/* The fast path for learning loops: an action index, checked legal. */
static PyObject *game_apply_action(GameObject *self, PyObject *arg)
{
    if (PyLong_Check(arg))
        return game_play(self, arg);
    if (!PyIndex_Check(arg)) { /* NumPy integers are taken as they are */
        PyErr_SetString(PyExc_TypeError, "apply_action takes an integer action");
        return NULL;
    }
    PyObject *i = PyNumber_Index(arg);
    PyObject *r = i ? game_play(self, i) : NULL;
    Py_XDECREF(i);
    return r;
}

static PyObject *game_undo(GameObject *self, PyObject *unused)
{
    (void)unused;
    if (self->depth == 0)
        return tabula_fail("nothing to undo");
    self->depth--;
    tb_state *t = self->state;
    self->state = self->history[self->depth];
    self->history[self->depth] = t;
    Py_RETURN_NONE;
}

static PyObject *game_to_move(GameObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromLong(tb_to_move(self->state));
}

static PyObject *game_is_over(GameObject *self, PyObject *unused)
{
    (void)unused;
    return PyBool_FromLong(tb_is_over(self->state));
}

static PyObject *game_returns(GameObject *self, PyObject *unused)
{
    (void)unused;
    double r[TB_MAX_SEATS] = {0};
    int p = tb_players(self->state);
    if (tb_is_over(self->state))
        tb_returns(self->state, r);
    PyObject *list = PyList_New(p);
    for (int i = 0; list && i < p; i++)
        PyList_SET_ITEM(list, i, PyFloat_FromDouble(r[i]));
    return list;
}

static PyObject *game_scores(GameObject *self, PyObject *unused)
{
    (void)unused;
    int sc[TB_MAX_SEATS];
    tb_scores(self->state, sc);
    int p = tb_players(self->state);
    PyObject *list = PyList_New(p);
    for (int i = 0; list && i < p; i++)
        PyList_SET_ITEM(list, i, PyLong_FromLong(sc[i]));
    return list;
}

static PyObject *game_clone(GameObject *self, PyObject *unused)
{
    (void)unused;
    return (PyObject *)game_wrap(tb_state_dup(self->state), self->board);
}

/* JSON text, owned by the caller of the C API, as a Python str. */
static PyObject *tabula_take_str(char *text)
{
    PyObject *s = PyUnicode_FromString(text);
    free(text);
    return s;
}

static PyObject *game_view_json(GameObject *self, PyObject *arg)
{
    long seat = PyLong_AsLong(arg);
    if (seat == -1 && PyErr_Occurred())
        return NULL;
    if (seat < -1 || seat >= tb_players(self->state))
        return PyErr_Format(tabula_error, "no seat %ld: seats are 0 to %d (-1: a spectator)", seat,
                            tb_players(self->state) - 1);
    return tabula_take_str(tb_view_json(self->state, (int)seat));
}

static PyObject *game_state(GameObject *self, PyObject *unused)
{
    (void)unused;
    return tabula_take_str(tb_state_json(self->state));
}

static PyObject *game_view(GameObject *self, PyObject *arg)
{
    PyObject *text = game_view_json(self, arg);
    if (!text)
        return NULL;
    PyObject *json = PyImport_ImportModule("json");
    PyObject *view = json ? PyObject_CallMethod(json, "loads", "O", text) : NULL;
    Py_XDECREF(json);
    Py_DECREF(text);
    return view;
}

/* A 64-bit seed from an int, a random.Random or a numpy Generator. */
static int tabula_seed_from(PyObject *rng, unsigned long long *out)
{
    PyObject *v;
    if (PyLong_Check(rng)) {
        v = rng;
        Py_INCREF(v);
    } else if (PyObject_HasAttrString(rng, "getrandbits")) {
        v = PyObject_CallMethod(rng, "getrandbits", "i", 64);
    } else if (PyObject_HasAttrString(rng, "integers")) {
        v = PyObject_CallMethod(rng, "integers", "LL", 0LL, (long long)INT64_MAX);
        if (v) {
            PyObject *i = PyNumber_Long(v);
            Py_DECREF(v);
            v = i;
        }
    } else {
        PyErr_SetString(PyExc_TypeError, "rng must be an int seed, a random.Random or a numpy Generator");
        return -1;
    }
    if (!v)
        return -1;
    *out = PyLong_AsUnsignedLongLongMask(v);
    Py_DECREF(v);
    return PyErr_Occurred() ? -1 : 0;
}

/* Game.load(json): replaces this game's state (any game) with a state printed
 * by state(); the undo history starts afresh.  A bad state changes nothing. */
static PyObject *game_load_into(GameObject *self, PyObject *arg)
{
    tb_state *s = tabula_load_state(arg, self->board);
    if (!s)
        return NULL;
    for (int i = 0; i < self->cap; i++) {
        tb_state_free(self->history[i]);
        self->history[i] = NULL;
    }
    self->depth = 0;
    tb_state_free(self->state);
    self->state = s;
    Py_RETURN_NONE;
}

static PyObject *game_repr(GameObject *self)
{
    return PyUnicode_FromFormat("<tabula.Game %s players=%d decisions=%d%s>",
                                tb_game_name(tb_state_game(self->state)), tb_players(self->state),
                                tb_decisions_made(self->state), tb_is_over(self->state) ? " over" : "");
}

static PyObject *game_resample(GameObject *self, PyObject *args)
{
    int seat;
    unsigned long long seed;
    PyObject *rngobj;
    if (!PyArg_ParseTuple(args, "iO", &seat, &rngobj) || tabula_seed_from(rngobj, &seed))
        return NULL;
    if (seat < 0 || seat >= tb_players(self->state))
        return PyErr_Format(tabula_error, "no seat %d: seats are 0 to %d", seat, tb_players(self->state) - 1);
    tb_rng rng;
    tb_rng_seed(&rng, seed);
    tb_resample(self->state, seat, &rng);
    Py_RETURN_NONE;
}

/* The game's history as a record from the oldest position kept (NULL when
 * none is kept, or without memory). */
static tb_record *game_history_record(const GameObject *self)
{
    if (self->depth == 0)
        return NULL;
    const tb_state *start = self->history[0];
    tb_record *rec = tb_record_new(tb_state_game(start), tb_players(start), NULL, tb_seed(start));
    for (int k = 0; rec && k < self->depth; k++) {
        char t[TB_MOVE_TEXT];
        if (tb_move_to_text(self->history[k], self->moves[k], t, sizeof t) < 0 ||
            tb_record_push(rec, t) != 0) {
            tb_record_free(rec);
            rec = NULL;
        }
    }
    return rec;
}

static PyObject *game_genmove(GameObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"agent", "iterations", "time_ms", "seed", "threads", "infer", NULL};
    const char *name = "ismcts";
    long long iterations = 0, time_ms = 0;
    unsigned long long seed = 0;
    int threads = 1;
    PyObject *seed_obj = NULL, *infer_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|sLLOiO", kwlist, &name, &iterations, &time_ms,
                                     &seed_obj, &threads, &infer_obj))
        return NULL;
    const tb_agent *agent = tb_agent_find(name);
    if (!agent)
        return PyErr_Format(tabula_error, "unknown agent '%s' (agents: random, greedy, ismcts)", name);
    if (tb_is_over(self->state))
        return tabula_fail("the game is over");
    if (iterations < 0 || time_ms < 0)
        return tabula_fail("iterations and time_ms must not be negative");
    tb_infer infer = TB_INFER_RULE;
    if (infer_obj != Py_None) {
        int on = PyObject_IsTrue(infer_obj);
        if (on < 0)
            return NULL;
        infer = on ? TB_INFER_ON : TB_INFER_OFF;
    }
    if (infer == TB_INFER_ON && tb_role_count(tb_state_game(self->state)) == 0)
        return tabula_fail("infer=True: nobody holds a secret role in this game");
    if (infer == TB_INFER_ON && (self->depth == 0 ? tb_decisions_made(self->state) != 0
                                                  : tb_decisions_made(self->history[0]) != 0))
        return tabula_fail("infer=True needs the game's history from its start (a loaded or "
                           "cloned game has none)");
    if (seed_obj && seed_obj != Py_None) {
        seed = PyLong_AsUnsignedLongLongMask(seed_obj);
        if (PyErr_Occurred())
            return NULL;
    } else {
        seed = tb_seed(self->state) * 0x9e3779b97f4a7c15ULL + (uint64_t)tb_decisions_made(self->state);
    }
    tb_budget budget = {.iterations = iterations, .time_ms = time_ms, .threads = threads,
                        .now_us = tabula_now_us};
    tb_state *copy = tb_state_dup(self->state);
    tb_state *start = self->depth > 0 ? tb_state_dup(self->history[0]) : NULL;
    tb_record *rec = infer == TB_INFER_OFF ? NULL : game_history_record(self);
    tb_move m;
    Py_BEGIN_ALLOW_THREADS
    m = tb_agent_decide_game(agent, copy, start, rec, &budget, infer, seed, NULL, NULL);
    Py_END_ALLOW_THREADS
    tb_record_free(rec);
    tb_state_free(start);
    tb_state_free(copy);
    return tabula_move_text(self->state, m);
}

static PyObject *game_observation(GameObject *self, PyObject *arg)
{
    long seat = PyLong_AsLong(arg);
    if (seat == -1 && PyErr_Occurred())
        return NULL;
    const tb_game *g = tb_state_game(self->state);
    int p = tb_players(self->state);
    npy_intp size = tb_observation_size(g, p);
    if (size == 0)
        return PyErr_Format(PyExc_NotImplementedError, "%s has no observation encoder yet",
                            tb_game_name(g));
    if (seat < 0 || seat >= p)
        return PyErr_Format(tabula_error, "no seat %ld: seats are 0 to %d", seat, p - 1);
    PyObject *arr = PyArray_SimpleNew(1, &size, NPY_FLOAT32);
    if (arr)
        tb_observation(self->state, (int)seat, PyArray_DATA((PyArrayObject *)arr));
    return arr;
}

static PyObject *game_action_to_string(GameObject *self, PyObject *arg)
{
    long a = PyLong_AsLong(arg);
    if (a == -1 && PyErr_Occurred())
        return NULL;
    const tb_game *g = tb_state_game(self->state);
    tb_move m;
    if (a < 0 || a > INT32_MAX || tb_action_to_move(g, (int)a, &m) != 0)
        return PyErr_Format(tabula_error, "%ld is no action of %s", a, tb_game_name(g));
    return tabula_move_text(self->state, m);
}

static PyObject *game_string_to_action(GameObject *self, PyObject *arg)
{
    tb_move m;
    if (game_parse(self, arg, &m))
        return NULL;
    return PyLong_FromLong(tb_move_to_action(tb_state_game(self->state), m));
}

static PyObject *game_get_name(GameObject *self, void *unused)
{
    (void)unused;
    return PyUnicode_FromString(tb_game_name(tb_state_game(self->state)));
}

/* The integer attributes: closure "p" players, "d" decisions made. */
static PyObject *game_get_int(GameObject *self, void *which)
{
    const char *w = which;
    return PyLong_FromLong(w[0] == 'p' ? tb_players(self->state) : tb_decisions_made(self->state));
}

static PyObject *game_text(GameObject *self, PyObject *args)
{
    int seat = TB_SPECTATOR;
    if (!PyArg_ParseTuple(args, "|i", &seat))
        return NULL;
    if (seat < -1 || seat >= tb_players(self->state))
        return tabula_fail("no such seat");
    return tabula_take_str(tb_render_text(self->state, seat, 0));
}

/* For bench/python_bench.py: ns per iteration of what legal_actions +
 * apply_action + undo do in C alone (list the legal actions, check the action,
 * save the state, apply, restore), in CPU time, so the benchmark can report
 * the Python layer's own overhead.  The state is unchanged afterwards. */
static PyObject *game_c_pair_ns(GameObject *self, PyObject *args)
{
    int action, reps;
    if (!PyArg_ParseTuple(args, "ii", &action, &reps))
        return NULL;
    tb_move m;
    if (reps < 1 || tb_action_to_move(tb_state_game(self->state), action, &m) != 0 ||
        !tb_is_legal(self->state, m))
        return tabula_fail("_c_pair_ns needs a legal action and reps >= 1");
    tb_state *saved = tb_state_dup(self->state);
    int32_t actions[TB_MAX_MOVES];
    int64_t sink = 0;
    struct timespec c0, c1; /* this thread's CPU time: steady on a shared machine */
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    for (int i = 0; i < reps; i++) {
        sink += tb_legal_actions(self->state, actions);
        tb_move mv;
        if (tb_action_to_move(tb_state_game(self->state), action, &mv) == 0 && tb_is_legal(self->state, mv)) {
            tb_state_copy(saved, self->state);
            tb_apply(self->state, mv);
            tb_state_copy(self->state, saved);
        }
    }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    tb_state_free(saved);
    double ns = (double)(c1.tv_sec - c0.tv_sec) * 1e9 + (double)(c1.tv_nsec - c0.tv_nsec);
    return PyFloat_FromDouble(sink > 0 ? ns / reps : 0.0);
}

#define METH(name, fn, flags, doc) {name, (PyCFunction)(void (*)(void))fn, flags, doc}

static PyMethodDef game_methods[] = {
    METH("legal", game_legal, METH_NOARGS, "The legal decisions as text, in canonical order."),
    METH("legal_actions", game_legal_actions, METH_NOARGS,
         "The legal decisions as action indexes (a NumPy int64 array), in canonical order."),
    METH("legal_actions_list", game_legal_actions_list, METH_NOARGS,
         "The legal decisions as action indexes in a Python list (legal_actions().tolist(), faster)."),
    METH("play", game_play, METH_O, "Plays a decision given as text or as an action index."),
    METH("apply_action", game_apply_action, METH_O,
         "Plays an action index, a Python or NumPy integer (checked legal)."),
    METH("undo", game_undo, METH_NOARGS, "Steps back one decision played on this object."),
    METH("to_move", game_to_move, METH_NOARGS, "The seat to decide, or -1 when the game is over."),
    METH("is_over", game_is_over, METH_NOARGS, "Whether the game has ended."),
    METH("returns", game_returns, METH_NOARGS,
         "Per seat: 1/(number of winners) for a winner, else 0; all 0 while the game goes on."),
    METH("scores", game_scores, METH_NOARGS, "The current score per seat."),
    METH("clone", game_clone, METH_NOARGS, "An independent copy (a memcpy of the C state; no undo history)."),
    METH("view_json", game_view_json, METH_O, "What a seat sees (-1: a spectator), as JSON text."),
    METH("state", game_state, METH_NOARGS, "The whole state, secrets included, as JSON text."),
    METH("load", game_load_into, METH_O,
         "Replaces the state with one printed by state() (the undo history starts afresh)."),
    METH("view", game_view, METH_O, "What a seat sees (-1: a spectator), as a dict."),
    METH("resample", game_resample, METH_VARARGS,
         "resample(seat, rng): re-deals every secret the seat cannot see (rng: an int seed, a "
         "random.Random or a numpy Generator)."),
    {"genmove", (PyCFunction)(void (*)(void))game_genmove, METH_VARARGS | METH_KEYWORDS,
     "genmove(agent='ismcts', iterations=0, time_ms=0, seed=None, threads=1, infer=None): the "
     "agent's decision for the seat to move, as text (not played). infer: whether the search deals "
     "the others' secret roles (Clans's colours) by what their play since the start has shown "
     "(None: where that was measured to win). The GIL is released while it searches."},
    METH("observation", game_observation, METH_O,
         "The seat's observation: a float32 array of the documented shape (docs/python.md)."),
    METH("action_to_string", game_action_to_string, METH_O, "The text of an action index."),
    METH("string_to_action", game_string_to_action, METH_O,
         "The action index of a decision's text (which must be legal now)."),
    METH("text", game_text, METH_VARARGS, "A readable board as a seat sees it."),
    METH("_c_pair_ns", game_c_pair_ns, METH_VARARGS,
         "_c_pair_ns(action, reps): ns per legal_actions + apply_action + undo done in C alone "
         "(bench/python_bench.py)."),
    {NULL, NULL, 0, NULL},
};

static PyObject *game_get_board(GameObject *self, void *unused)
{
    (void)unused;
    PyObject *b = self->board ? self->board : Py_None;
    Py_INCREF(b);
    return b;
}

static PyGetSetDef game_getset[] = {
    {"name", (getter)game_get_name, NULL, "the game's name", NULL},
    {"board", (getter)game_get_board, NULL, "the Board the game is played on (None: the built-in one)", NULL},
    {"players", (getter)game_get_int, NULL, "the number of seats", "p"},
    {"decisions", (getter)game_get_int, NULL, "decisions made since the deal", "d"},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject GameType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tabula._tabula.Game",
    .tp_basicsize = sizeof(GameObject),
    .tp_dealloc = (destructor)game_dealloc,
    .tp_repr = (reprfunc)game_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One game of Clans, Arkadia or Khronos (made by tabula.new_game or tabula.load).",
    .tp_methods = game_methods,
    .tp_getset = game_getset,
};

/* ----------------------------------------------------------- VectorGames */

typedef struct {
    PyObject_HEAD
    const tb_game *game;
    int players, n, num_actions, obs_size;
    tb_options opts;
    uint64_t next_seed;
    tb_state **states;
    tb_rng *rngs;
    tb_move *moves; /* scratch for step: one decision per game */
    int *seen_by;   /* the seat that made each game's last decision (0 before any) */
    int autoreset;  /* deal a finished game afresh within the step that ended it */
    /* What observations() and action_masks() keep, made at their first call
     * and rewritten in place: obs_buf (n × obs_size) with each row's
     * tb_obs_track, mask_buf (n × num_actions bools) with each row's actions
     * set (mask_prev), bits_buf (n × ceil(num_actions / 8) bytes). */
    float *obs_buf;
    tb_obs_track **tracks;
    int *seats;     /* scratch: the seat each row is seen by */
    npy_bool *mask_buf;
    uint8_t *bits_buf;
    struct vec_list {
        int32_t *a;
        int n, cap;
    } *mask_prev;
    /* mask_buf / bits_buf hold the legal actions of the states as they are
     * (no game changed since they were written): step checks actions there
     * instead of listing each game's legal decisions again. */
    int bools_fresh, bits_fresh;
    const tb_data *data; /* the board (NULL: the built-in one), of `board` */
    PyObject *board;
} VecObject;

typedef struct vec_list vec_list;

/* The seat game i is observed from: the seat to move, or once the game is
 * over (autoreset=False) the seat whose decision ended it. */
static int vec_seat(const VecObject *self, int i)
{
    int seat = tb_to_move(self->states[i]);
    return seat >= 0 ? seat : self->seen_by[i];
}

static void vec_dealloc(VecObject *self)
{
    for (int i = 0; self->states && i < self->n; i++)
        tb_state_free(self->states[i]);
    free(self->states);
    free(self->rngs);
    free(self->moves);
    free(self->seen_by);
    free(self->obs_buf);
    free(self->seats);
    for (int i = 0; self->tracks && i < self->n; i++)
        tb_obs_track_free(self->tracks[i]);
    free(self->tracks);
    free(self->mask_buf);
    free(self->bits_buf);
    for (int i = 0; self->mask_prev && i < self->n; i++)
        free(self->mask_prev[i].a);
    free(self->mask_prev);
    Py_XDECREF(self->board);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Deals game i afresh with the next seed (setup cannot fail: checked once). */
static void vec_deal(VecObject *self, int i)
{
    char err[TB_ERR_LEN];
    self->seen_by[i] = 0;
    tb_setup_data(self->states[i], self->data, self->players, &self->opts, self->next_seed++, err, sizeof err);
}

static int vec_init(VecObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"game", "n", "players", "seed", "options", "board", "autoreset", NULL};
    const char *name;
    int n = 1024, players = 0, autoreset = 1;
    unsigned long long seed = 0;
    PyObject *options = NULL, *board = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s|iiKOOp", kwlist, &name, &n, &players, &seed, &options,
                                     &board, &autoreset))
        return -1;
    if (self->states) {
        PyErr_SetString(tabula_error, "VectorGames is already set up");
        return -1;
    }
    self->game = tabula_find_game(name);
    if (!self->game || tabula_options(options, &self->opts) ||
        tabula_board_arg(board, self->game, &self->data))
        return -1;
    if (n < 1 || n > 1 << 22) {
        PyErr_SetString(tabula_error, "n must be from 1 to 4194304");
        return -1;
    }
    if (!players)
        players = tb_game_default_players(self->game);
    tb_state *probe = tb_state_new(self->game);
    char err[TB_ERR_LEN];
    int rc = probe ? tb_setup_data(probe, self->data, players, &self->opts, seed, err, sizeof err) : -1;
    tb_state_free(probe);
    if (rc) {
        PyErr_SetString(tabula_error, probe ? err : "out of memory");
        return -1;
    }
    if (self->data) {
        self->board = board;
        Py_INCREF(board);
    }
    self->players = players;
    self->n = n;
    self->num_actions = tb_num_actions(self->game, players);
    self->obs_size = tb_observation_size(self->game, players);
    self->next_seed = seed;
    self->states = calloc((size_t)n, sizeof *self->states);
    self->rngs = calloc((size_t)n, sizeof *self->rngs);
    self->moves = calloc((size_t)n, sizeof *self->moves);
    self->seen_by = calloc((size_t)n, sizeof *self->seen_by);
    self->autoreset = autoreset;
    if (!self->states || !self->rngs || !self->moves || !self->seen_by) {
        PyErr_NoMemory();
        return -1;
    }
    tb_rng master;
    tb_rng_seed(&master, seed ^ 0x5851f42d4c957f2dULL);
    for (int i = 0; i < n; i++) {
        self->states[i] = tb_state_new(self->game);
        self->rngs[i] = tb_rng_split(&master);
        vec_deal(self, i);
    }
    return 0;
}

/* An array over `data`, one of this object's buffers: with `copy` a new
 * array holding a copy, else a read-only view that keeps the VectorGames
 * alive and shows what later calls write into the buffer. */
static PyObject *vec_array(VecObject *self, void *data, npy_intp rows, npy_intp cols, int type, int copy)
{
    npy_intp dims[2] = {rows, cols};
    PyObject *arr = PyArray_SimpleNewFromData(2, dims, type, data);
    if (!arr || copy) {
        PyObject *c = arr ? PyArray_NewCopy((PyArrayObject *)arr, NPY_CORDER) : NULL;
        Py_XDECREF(arr);
        return c;
    }
    PyArray_CLEARFLAGS((PyArrayObject *)arr, NPY_ARRAY_WRITEABLE);
    Py_INCREF(self);
    if (PyArray_SetBaseObject((PyArrayObject *)arr, (PyObject *)self) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    return arr;
}

/* Sets up the kept mask buffers on first use (0, or -1 with MemoryError). */
static int vec_mask_buffers(VecObject *self, int packed)
{
    size_t n = (size_t)self->n, a = (size_t)self->num_actions;
    size_t bools = n * a + 1, bytes = n * ((a + 7) / 8) + 1; /* + 1: never a 0-byte calloc */
    if (!self->mask_prev && !(self->mask_prev = calloc(n + 1, sizeof *self->mask_prev)))
        return PyErr_NoMemory(), -1;
    if (!packed && !self->mask_buf && !(self->mask_buf = calloc(bools, 1)))
        return PyErr_NoMemory(), -1;
    if (packed && !self->bits_buf && !(self->bits_buf = calloc(bytes, 1)))
        return PyErr_NoMemory(), -1;
    return 0;
}

/* action_masks(copy=True, packed=False): the legal actions of each game, as
 * an (n, num_actions) bool array, or with packed=True as bits, (n,
 * (num_actions + 7) // 8) uint8, action a in bit a % 8 (the lowest first) of
 * byte a // 8 (np.unpackbits(m, axis=1, bitorder="little")).  The masks are
 * kept in this object and rewritten in place: only the actions legal before
 * or now are touched; copy=False returns a read-only view of them, which the
 * next call rewrites. */
static PyObject *vec_action_masks(VecObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"copy", "packed", NULL};
    int copy = 1, packed = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|pp", kwlist, &copy, &packed))
        return NULL;
    if (vec_mask_buffers(self, packed))
        return NULL;
    size_t a = (size_t)self->num_actions, bytes = (a + 7) / 8;
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    int32_t actions[TB_MAX_MOVES];
    for (int i = 0; i < self->n && !failed; i++) {
        int k = tb_legal_actions(self->states[i], actions);
        if (packed) {
            uint8_t *row = self->bits_buf + (size_t)i * bytes;
            memset(row, 0, bytes);
            for (int j = 0; j < k; j++)
                row[actions[j] >> 3] |= (uint8_t)(1u << (actions[j] & 7));
            continue;
        }
        npy_bool *row = self->mask_buf + (size_t)i * a;
        if (a <= 4096) { /* a small row (Clans's): clearing it whole is cheaper than a list */
            memset(row, 0, a);
            for (int j = 0; j < k; j++)
                row[actions[j]] = 1;
            continue;
        }
        vec_list *prev = &self->mask_prev[i];
        for (int j = 0; j < prev->n; j++)
            row[prev->a[j]] = 0;
        if (k > prev->cap) {
            int32_t *grown = realloc(prev->a, (size_t)k * sizeof *grown);
            if (!grown) {
                failed = 1;
                prev->n = 0;
                memset(row, 0, a); /* nothing kept: the row starts clean */
                break;
            }
            prev->a = grown;
            prev->cap = k;
        }
        memcpy(prev->a, actions, (size_t)k * sizeof *actions);
        prev->n = k;
        for (int j = 0; j < k; j++)
            row[actions[j]] = 1;
    }
    Py_END_ALLOW_THREADS
    if (failed)
        return PyErr_NoMemory();
    if (packed)
        self->bits_fresh = 1;
    else
        self->bools_fresh = 1;
    return packed ? vec_array(self, self->bits_buf, self->n, (npy_intp)bytes, NPY_UINT8, copy)
                  : vec_array(self, self->mask_buf, self->n, (npy_intp)a, NPY_BOOL, copy);
}

/* legal_actions() -> (actions, offsets): every game's legal actions in one
 * int32 array, game i's at actions[offsets[i]:offsets[i + 1]] (offsets:
 * int64, n + 1), in the order of Game.legal_actions() — the index lists for
 * action spaces too large for dense masks. */
static PyObject *vec_legal_actions(VecObject *self, PyObject *unused)
{
    (void)unused;
    npy_intp n1 = (npy_intp)self->n + 1;
    int64_t *off;
    PyObject *offsets = tabula_int64_array(n1, &off);
    if (!offsets)
        return NULL;
    size_t cap = (size_t)self->n * 16 + 16, used = 0;
    int32_t *all = malloc(cap * sizeof *all);
    int failed = !all;
    Py_BEGIN_ALLOW_THREADS
    int32_t actions[TB_MAX_MOVES];
    off[0] = 0;
    for (int i = 0; i < self->n && !failed; i++) {
        int k = tb_legal_actions(self->states[i], actions);
        if (used + (size_t)k > cap) {
            size_t grown_cap = (used + (size_t)k) * 2;
            int32_t *grown = realloc(all, grown_cap * sizeof *grown);
            if (!grown) {
                failed = 1;
                break;
            }
            all = grown;
            cap = grown_cap;
        }
        memcpy(all + used, actions, (size_t)k * sizeof *actions);
        used += (size_t)k;
        off[i + 1] = (int64_t)used;
    }
    Py_END_ALLOW_THREADS
    PyObject *arr = NULL;
    if (!failed) {
        npy_intp len = (npy_intp)used;
        arr = PyArray_SimpleNew(1, &len, NPY_INT32);
        if (arr)
            memcpy(PyArray_DATA((PyArrayObject *)arr), all, used * sizeof *all);
    } else {
        PyErr_NoMemory();
    }
    free(all);
    if (!arr) {
        Py_DECREF(offsets);
        return NULL;
    }
    return Py_BuildValue("(NN)", arr, offsets);
}

/* Every game's observation by its seat (vec_seat), kept in this object and
 * rewritten in place (tb_observation_update: only what changed is touched);
 * with `copy` a new array, else a read-only view the next call rewrites. */
static PyObject *vec_obs(VecObject *self, int copy)
{
    if (!self->game)
        return tabula_fail("VectorGames was not set up (call it with a game name)");
    if (self->obs_size == 0)
        return PyErr_Format(PyExc_NotImplementedError, "%s has no observation encoder yet",
                            tb_game_name(self->game));
    size_t n = (size_t)self->n, size = (size_t)self->obs_size;
    if (!self->obs_buf) { /* set up at the first call; what a failed call made stays for the next */
        if (!self->tracks)
            self->tracks = calloc(n, sizeof *self->tracks);
        if (!self->seats)
            self->seats = calloc(n, sizeof *self->seats);
        for (size_t i = 0; self->tracks && i < n; i++)
            if (!self->tracks[i] && !(self->tracks[i] = tb_obs_track_new()))
                break;
        if (!self->tracks || !self->seats || !self->tracks[n - 1] ||
            !(self->obs_buf = calloc(n * size, sizeof *self->obs_buf)))
            return PyErr_NoMemory();
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    for (size_t i = 0; i < n; i++)
        self->seats[i] = vec_seat(self, (int)i);
    rc = tb_observation_update_batch((const tb_state *const *)self->states, self->seats, self->n, self->obs_buf,
                                     size, self->tracks);
    Py_END_ALLOW_THREADS
    if (rc)
        return PyErr_NoMemory();
    return vec_array(self, self->obs_buf, self->n, self->obs_size, NPY_FLOAT32, copy);
}

/* observations(copy=True). */
static PyObject *vec_observations(VecObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"copy", NULL};
    int copy = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|p", kwlist, &copy))
        return NULL;
    return vec_obs(self, copy);
}

static PyObject *vec_to_move(VecObject *self, PyObject *unused)
{
    (void)unused;
    int64_t *d;
    PyObject *arr = tabula_int64_array(self->n, &d);
    if (!arr)
        return NULL;
    for (int i = 0; i < self->n; i++)
        d[i] = tb_to_move(self->states[i]);
    return arr;
}

static PyObject *vec_random_actions(VecObject *self, PyObject *unused)
{
    (void)unused;
    int64_t *d;
    PyObject *arr = tabula_int64_array(self->n, &d);
    if (!arr)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    for (int i = 0; i < self->n; i++)
        d[i] = tb_is_over(self->states[i]) ? -1
               : tb_move_to_action(self->game, tb_random_move(self->states[i], &self->rngs[i]));
    Py_END_ALLOW_THREADS
    return arr;
}

/* Applies self->moves (one legal decision per game still going on; games
 * over, kept by autoreset=False, are left as they are) and builds step's
 * reply: (observations or None, rewards, dones), and with `info` a fourth
 * item, the dict of what the games that ended left (vec_step's comment). */
static PyObject *vec_apply_moves(VecObject *self, int observe, int info, int copy)
{
    npy_intp rdims[2] = {self->n, self->players}, n = self->n, odims[2] = {self->n, self->obs_size};
    PyObject *rewards = PyArray_ZEROS(2, rdims, NPY_FLOAT32, 0);
    PyObject *dones = PyArray_ZEROS(1, &n, NPY_BOOL, 0);
    PyObject *final_obs = NULL, *final_seat = NULL;
    if (rewards && dones && info) {
        /* zeros come from calloc: the pages of rows never written cost nothing */
        if (self->obs_size > 0) {
            final_obs = PyArray_ZEROS(2, odims, NPY_FLOAT32, 0);
        } else {
            final_obs = Py_None;
            Py_INCREF(final_obs);
        }
        final_seat = PyArray_SimpleNew(1, &n, NPY_INT64);
    }
    if (!rewards || !dones || (info && (!final_obs || !final_seat))) {
        Py_XDECREF(rewards);
        Py_XDECREF(dones);
        Py_XDECREF(final_obs);
        Py_XDECREF(final_seat);
        return NULL;
    }
    float *r = PyArray_DATA((PyArrayObject *)rewards);
    npy_bool *done = PyArray_DATA((PyArrayObject *)dones);
    float *fo = final_obs && final_obs != Py_None ? PyArray_DATA((PyArrayObject *)final_obs) : NULL;
    self->bools_fresh = self->bits_fresh = 0;
    int64_t *fs = final_seat ? PyArray_DATA((PyArrayObject *)final_seat) : NULL;
    Py_BEGIN_ALLOW_THREADS
    for (int i = 0; i < self->n; i++) {
        tb_state *s = self->states[i];
        if (fs)
            fs[i] = -1;
        if (tb_is_over(s))
            continue;
        self->seen_by[i] = tb_to_move(s);
        tb_apply(s, self->moves[i]);
        if (tb_is_over(s)) {
            double ret[TB_MAX_SEATS];
            tb_returns(s, ret);
            for (int p = 0; p < self->players; p++)
                r[i * self->players + p] = (float)ret[p];
            done[i] = 1;
            if (fs)
                fs[i] = self->seen_by[i];
            if (fo)
                tb_observation(s, self->seen_by[i], fo + (size_t)i * (size_t)self->obs_size);
            if (self->autoreset)
                vec_deal(self, i);
        }
    }
    Py_END_ALLOW_THREADS
    PyObject *obs = Py_None;
    if (observe && self->obs_size > 0)
        obs = vec_obs(self, copy);
    else
        Py_INCREF(obs);
    PyObject *infos = NULL;
    if (obs && info) {
        PyObject *mask = PyArray_NewCopy((PyArrayObject *)dones, NPY_CORDER);
        PyObject *returns = PyArray_NewCopy((PyArrayObject *)rewards, NPY_CORDER);
        if (mask && returns)
            infos = Py_BuildValue("{sOsOsOsO}", "final_obs", final_obs, "_final_obs", mask,
                                  "final_returns", returns, "final_seat", final_seat);
        Py_XDECREF(mask);
        Py_XDECREF(returns);
    }
    Py_XDECREF(final_obs);
    Py_XDECREF(final_seat);
    if (!obs || (info && !infos)) {
        Py_XDECREF(obs);
        Py_DECREF(rewards);
        Py_DECREF(dones);
        return NULL;
    }
    if (info)
        return Py_BuildValue("(NNNN)", obs, rewards, dones, infos);
    return Py_BuildValue("(NNN)", obs, rewards, dones);
}

/* step(actions, observe=True, info=False) -> (observations or None, rewards
 * (n, players), dones (n,)[, info]).  Every action is checked before any is
 * applied (a game over, kept by autoreset=False, takes any action and stays
 * as it is); a game that ends reports its returns as rewards and, with
 * autoreset, is dealt afresh in the same step, so the observations show the
 * new deal.  info: {"final_obs": (n, size) the ended games' last positions
 * seen by the seat whose decision ended them (other rows zero), "_final_obs":
 * which rows hold one (the dones), "final_returns": their returns,
 * "final_seat": that seat (-1 for other games)}. */
static PyObject *vec_step(VecObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"actions", "observe", "info", "copy", NULL};
    PyObject *in;
    int observe = 1, info = 0, copy = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|ppp", kwlist, &in, &observe, &info, &copy))
        return NULL;
    if (!self->game)
        return tabula_fail("VectorGames was not set up (call it with a game name)");
    PyArrayObject *acts = (PyArrayObject *)PyArray_FROMANY(in, NPY_INT64, 1, 1, NPY_ARRAY_CARRAY_RO);
    if (!acts)
        return NULL;
    if (PyArray_DIM(acts, 0) != self->n) {
        Py_DECREF(acts);
        return PyErr_Format(tabula_error, "step needs %d actions, got %ld", self->n,
                            (long)PyArray_DIM(acts, 0));
    }
    const int64_t *a = PyArray_DATA(acts);
    int bad = -1;
    size_t na = (size_t)self->num_actions, bytes = (na + 7) / 8;
    Py_BEGIN_ALLOW_THREADS
    for (int i = 0; i < self->n && bad < 0; i++) {
        if (tb_is_over(self->states[i]))
            continue;
        if (a[i] < 0 || a[i] >= self->num_actions ||
            tb_action_to_move(self->game, (int)a[i], &self->moves[i]) != 0)
            bad = i;
        else if (self->bools_fresh) /* the masks of these very states */
            bad = self->mask_buf[(size_t)i * na + (size_t)a[i]] ? -1 : i;
        else if (self->bits_fresh)
            bad = self->bits_buf[(size_t)i * bytes + (size_t)(a[i] >> 3)] >> (a[i] & 7) & 1 ? -1 : i;
        else if (!tb_is_legal(self->states[i], self->moves[i]))
            bad = i;
    }
    Py_END_ALLOW_THREADS
    if (bad >= 0) {
        PyErr_Format(tabula_error, "illegal move: action %lld is not legal in game %d", (long long)a[bad], bad);
        Py_DECREF(acts);
        return NULL;
    }
    Py_DECREF(acts);
    return vec_apply_moves(self, observe, info, copy);
}

/* step_random(observe=False, info=False): step with one uniformly random
 * legal decision per game, drawn in C from each game's own generator (the
 * fast path for random play: no action round trip, no legality check
 * needed). */
static PyObject *vec_step_random(VecObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"observe", "info", "copy", NULL};
    int observe = 0, info = 0, copy = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|ppp", kwlist, &observe, &info, &copy))
        return NULL;
    if (!self->game)
        return tabula_fail("VectorGames was not set up (call it with a game name)");
    Py_BEGIN_ALLOW_THREADS
    for (int i = 0; i < self->n; i++)
        if (!tb_is_over(self->states[i]))
            self->moves[i] = tb_random_move(self->states[i], &self->rngs[i]);
    Py_END_ALLOW_THREADS
    return vec_apply_moves(self, observe, info, copy);
}

/* is_over() -> (n,) bool: which games are over (only with autoreset=False
 * can one be: a game that ends is otherwise dealt afresh at once). */
static PyObject *vec_is_over(VecObject *self, PyObject *unused)
{
    (void)unused;
    npy_intp n = self->n;
    PyObject *arr = PyArray_SimpleNew(1, &n, NPY_BOOL);
    if (!arr)
        return NULL;
    npy_bool *d = PyArray_DATA((PyArrayObject *)arr);
    for (int i = 0; i < self->n; i++)
        d[i] = (npy_bool)tb_is_over(self->states[i]);
    return arr;
}

/* reset(games=None, observe=True): deals afresh, each with the next seed,
 * every game (None), the games of a bool mask of n, or those of a list of
 * indexes; returns observations() (None with observe=False).  A bad index
 * raises IndexError and deals nothing. */
static PyObject *vec_reset(VecObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"games", "observe", "copy", NULL};
    PyObject *which = Py_None;
    int observe = 1, copy = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|Opp", kwlist, &which, &observe, &copy))
        return NULL;
    if (!self->game)
        return tabula_fail("VectorGames was not set up (call it with a game name)");
    char *pick = malloc((size_t)self->n);
    if (!pick)
        return PyErr_NoMemory();
    memset(pick, which == Py_None, (size_t)self->n);
    if (which != Py_None) {
        PyArrayObject *arr = (PyArrayObject *)PyArray_FROMANY(which, NPY_NOTYPE, 1, 1, NPY_ARRAY_CARRAY_RO);
        PyArrayObject *idx = NULL;
        int ok = arr != NULL;
        if (ok && PyArray_TYPE(arr) == NPY_BOOL) {
            if (PyArray_DIM(arr, 0) != self->n) {
                PyErr_Format(tabula_error, "reset needs a mask of %d games, got %ld", self->n,
                             (long)PyArray_DIM(arr, 0));
                ok = 0;
            } else {
                memcpy(pick, PyArray_DATA(arr), (size_t)self->n);
            }
        } else if (ok) {
            idx = (PyArrayObject *)PyArray_FROMANY((PyObject *)arr, NPY_INT64, 1, 1, NPY_ARRAY_CARRAY_RO);
            ok = idx != NULL;
            for (npy_intp k = 0; ok && k < PyArray_DIM(idx, 0); k++) {
                int64_t i = ((const int64_t *)PyArray_DATA(idx))[k];
                if (i < 0 || i >= self->n) {
                    PyErr_Format(PyExc_IndexError, "game %lld of %d", (long long)i, self->n);
                    ok = 0;
                } else {
                    pick[i] = 1;
                }
            }
        }
        Py_XDECREF(idx);
        Py_XDECREF(arr);
        if (!ok) {
            free(pick);
            return NULL;
        }
    }
    for (int i = 0; i < self->n; i++)
        if (pick[i])
            vec_deal(self, i);
    free(pick);
    self->bools_fresh = self->bits_fresh = 0;
    if (observe && self->obs_size > 0)
        return vec_obs(self, copy);
    Py_RETURN_NONE;
}

static PyObject *vec_game(VecObject *self, PyObject *arg)
{
    long i = PyLong_AsLong(arg);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    if (i < 0 || i >= self->n)
        return PyErr_Format(PyExc_IndexError, "game %ld of %d", i, self->n);
    return (PyObject *)game_wrap(tb_state_dup(self->states[i]), self->board);
}

static PyObject *vec_get_int(VecObject *self, void *which)
{
    const char *w = which;
    if (w[0] == 'r')
        return PyBool_FromLong(self->autoreset);
    return PyLong_FromLong(w[0] == 'n' ? self->n : w[0] == 'p' ? self->players
                           : w[0] == 'a' ? self->num_actions : self->obs_size);
}

static PyMethodDef vec_methods[] = {
    {"action_masks", (PyCFunction)(void (*)(void))vec_action_masks, METH_VARARGS | METH_KEYWORDS,
     "action_masks(copy=True, packed=False): the legal actions of each game, an (n, num_actions) "
     "bool array, or packed=True: bits, (n, (num_actions + 7) // 8) uint8, little bit order. "
     "copy=False: a read-only view of the masks kept here, rewritten by the next call."},
    METH("legal_actions", vec_legal_actions, METH_NOARGS,
         "(actions, offsets): every game's legal actions in one int32 array, game i's at "
         "actions[offsets[i]:offsets[i + 1]]."),
    {"observations", (PyCFunction)(void (*)(void))vec_observations, METH_VARARGS | METH_KEYWORDS,
     "observations(copy=True): an (n, observation size) float32 array, each game seen by its seat "
     "to move; copy=False: a read-only view of the observations kept here, rewritten in place by "
     "the next call (the fast path)."},
    METH("to_move", vec_to_move, METH_NOARGS, "The seat to move in each game (an int64 array)."),
    METH("random_actions", vec_random_actions, METH_NOARGS,
         "One uniformly random legal action per game, drawn in C."),
    {"step", (PyCFunction)(void (*)(void))vec_step, METH_VARARGS | METH_KEYWORDS,
     "step(actions, observe=True, info=False, copy=True) -> (observations or None, rewards, dones[, "
     "info]); copy as in observations(). "
     "Finished games report their returns as rewards and, with autoreset, are dealt afresh; "
     "info holds their final observations and returns (docs/python.md)."},
    {"step_random", (PyCFunction)(void (*)(void))vec_step_random, METH_VARARGS | METH_KEYWORDS,
     "step_random(observe=False, info=False, copy=True): step every game with a uniformly random legal "
     "decision drawn in C; returns what step returns."},
    METH("is_over", vec_is_over, METH_NOARGS,
         "An (n,) bool array: which games are over (only with autoreset=False)."),
    {"reset", (PyCFunction)(void (*)(void))vec_reset, METH_VARARGS | METH_KEYWORDS,
     "reset(games=None, observe=True, copy=True): deals afresh every game, or those of a bool mask or an "
     "index list, each with the next seed; returns observations()."},
    METH("game", vec_game, METH_O, "A copy of game i as a tabula Game."),
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef vec_getset[] = {
    {"n", (getter)vec_get_int, NULL, "the number of games", "n"},
    {"players", (getter)vec_get_int, NULL, "seats per game", "p"},
    {"num_actions", (getter)vec_get_int, NULL, "the size of the action space", "a"},
    {"observation_size", (getter)vec_get_int, NULL, "floats per observation (0: none)", "o"},
    {"autoreset", (getter)vec_get_int, NULL, "whether a game that ends is dealt afresh at once", "r"},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject VecType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tabula._tabula.VectorGames",
    .tp_basicsize = sizeof(VecObject),
    .tp_dealloc = (destructor)vec_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "VectorGames(game, n=1024, players=0, seed=0, options=None, board=None, autoreset=True): "
              "n games held and stepped in C.",
    .tp_methods = vec_methods,
    .tp_getset = vec_getset,
    .tp_init = (initproc)vec_init,
    .tp_new = PyType_GenericNew,
};

/* ------------------------------------------------------------------ module */

/* The arguments (game, players=0) of the module's size functions: the game
 * (NULL with the Python error set) and *players, 0 meaning its default. */
static const tb_game *tabula_game_players(PyObject *args, int *players)
{
    const char *name;
    *players = 0;
    if (!PyArg_ParseTuple(args, "s|i", &name, players))
        return NULL;
    const tb_game *g = tabula_find_game(name);
    if (g && !*players)
        *players = tb_game_default_players(g);
    return g;
}

static PyObject *mod_num_actions(PyObject *mod, PyObject *args)
{
    (void)mod;
    int players;
    const tb_game *g = tabula_game_players(args, &players);
    if (!g)
        return NULL;
    int n = tb_num_actions(g, players);
    if (!n)
        return PyErr_Format(tabula_error, "%s is for %d to %d players", tb_game_name(g),
                            tb_game_min_players(g), tb_game_max_players(g));
    return PyLong_FromLong(n);
}

static PyObject *mod_observation_size(PyObject *mod, PyObject *args)
{
    (void)mod;
    int players;
    const tb_game *g = tabula_game_players(args, &players);
    return g ? PyLong_FromLong(tb_observation_size(g, players)) : NULL;
}

static PyObject *mod_games(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    PyObject *list = PyList_New(tb_game_count());
    for (int i = 0; list && i < tb_game_count(); i++) {
        const tb_game *g = tb_game_at(i);
        PyList_SET_ITEM(list, i, Py_BuildValue("(siii)", tb_game_name(g), tb_game_min_players(g),
                                               tb_game_max_players(g), tb_game_default_players(g)));
    }
    return list;
}

static PyMethodDef module_methods[] = {
    {"new_game", (PyCFunction)(void (*)(void))game_new_game, METH_VARARGS | METH_KEYWORDS,
     "new_game(game, players=0, seed=0, options=None, board=None): deals a game (players 0: the usual "
     "count; board: a Board, None: the built-in one)."},
    {"load", (PyCFunction)(void (*)(void))game_load, METH_VARARGS | METH_KEYWORDS,
     "load(json, board=None): a game from the JSON text of Game.state() (board: the Board it names)."},
    METH("num_actions", mod_num_actions, METH_VARARGS, "num_actions(game, players=0)"),
    METH("observation_size", mod_observation_size, METH_VARARGS, "observation_size(game, players=0)"),
    METH("games", mod_games, METH_NOARGS, "(name, min, max, default players) of every game."),
    METH("read_board", mod_read_board, METH_VARARGS,
         "read_board(game, path): a Board from a board file (regular files of at most 64 MiB)."),
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef tabula_module = {
    PyModuleDef_HEAD_INIT, "_tabula", "The C core of the tabula package (docs/python.md).", -1,
    module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__tabula(void);
PyMODINIT_FUNC PyInit__tabula(void)
{
    import_array();
    if (PyType_Ready(&BoardType) < 0 || PyType_Ready(&GameType) < 0 || PyType_Ready(&VecType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&tabula_module);
    if (!m)
        return NULL;
    tabula_error = PyErr_NewExceptionWithDoc("tabula.Error",
                                             "An error from the engine (illegal move, bad JSON, unknown game...).",
                                             PyExc_ValueError, NULL);
    Py_INCREF(&BoardType);
    Py_INCREF(&GameType);
    Py_INCREF(&VecType);
    if (!tabula_error || PyModule_AddObject(m, "Error", tabula_error) < 0 ||
        PyModule_AddObject(m, "Board", (PyObject *)&BoardType) < 0 ||
        PyModule_AddObject(m, "Game", (PyObject *)&GameType) < 0 ||
        PyModule_AddObject(m, "VectorGames", (PyObject *)&VecType) < 0 ||
        PyModule_AddStringConstant(m, "version", TB_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(tabula_error);
    return m;
}
