/*
 * A directory ldprof made for its own files (mkdtemp), removed with the
 * files directly in it when a signal ends ldprof (SIGTERM, SIGHUP,
 * SIGQUIT, a second SIGINT) between interrupt_begin() and interrupt_end()
 * (base/interrupt.h): `kill ldprof` leaves nothing behind in $TMPDIR.
 */
#ifndef LDPROF_DOOMED_DIR_H
#define LDPROF_DOOMED_DIR_H

/*
 * Doom dir (copied; a path longer than PATH_MAX is not doomed); NULL
 * undooms it. It takes interrupt_on_death()'s one place.
 */
void doomed_dir_set(const char *dir);

/*
 * Undoom dir and remove it with the files directly in it (subdirectories
 * stay, and so does dir then). For a directory ldprof made and filled
 * itself: whatever its builds wrote there goes.
 */
void doomed_dir_remove(const char *dir);

#endif
