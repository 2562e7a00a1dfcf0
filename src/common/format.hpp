// Numbers and names for people, one place for the library and the command
// line: the name of an input in messages, counts, sizes, durations. Pure
// functions of their arguments, safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kmerbloom {

// The name of an input or output in messages: the path, "<stdin>" for "-".
inline std::string display_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

// Bytes of a file quoted in a message: printable ASCII as it is, any other
// byte as \xNN (a terminal must not get raw bytes), cut after `max` bytes
// with "...".
std::string printable(std::string_view bytes, size_t max = 60);

// "1 thread", "2 threads": n and the word, with an s unless n is 1.
std::string plural(uint64_t n, std::string_view word);

// "0:42", "12:03", "1:02:03" (seconds, rounded; negative or NaN reads 0).
std::string format_duration(double seconds);
// "812", "12.3 k", "4.56 M", "1.20 G" (decimal, 3 significant digits).
std::string format_quantity(double v);
// "28,680,676".
std::string format_count(uint64_t v);
// "50.7 MiB": binary units, for memory and file sizes in bytes.
std::string format_bytes(double bytes);
// "3 MiB": bytes rounded up to whole MiB (the unit of -M 3M), as count's plan
// and errors give them.
std::string format_megabytes(uint64_t bytes);
// "700M", "3.5G": a value for -M of at least `bytes`, rounded up to whole MiB
// below 1 GiB and to tenths of a GiB from there.
std::string format_memory_option(uint64_t bytes);
// "4.93 Mb": sequence length in bases, decimal units.
std::string format_bases(double bases);

}  // namespace kmerbloom
