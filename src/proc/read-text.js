// One /proc (or /sys) file as text. /proc files say they are empty, so a read into a Buffer
// allocates an 8 KiB chunk for a few bytes (Node 20 and 24, measured); read on every poll, those
// chunks were the external memory of a quiet worker until its next GC, ~1 MiB a minute of it,
// twice what raises a leak suspicion. Read as UTF-8, Node reads the file in C++ and
// hands back only the string (its readFileUtf8 fast path). The files nodesup reads are ASCII but
// for paths and command lines, which UTF-8 reads as the user wrote them.
import fs from 'node:fs';

/** @param {string} file @returns {string}  throws as fs.readFileSync does */
export const readText = (file) => fs.readFileSync(file, 'utf8');
