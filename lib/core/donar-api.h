/* DONAR_API marks what libdonar-1.0.so exports, as GST_API does in
 * GStreamer: the library is built with hidden visibility, so whatever a
 * header declares without it stays inside, and the installed headers say
 * the whole API (tests/install/check-exports.sh holds the two in step). */
#ifndef DONAR_API_H
#define DONAR_API_H

#define DONAR_API __attribute__ ((visibility ("default"))) extern

#endif /* DONAR_API_H */
