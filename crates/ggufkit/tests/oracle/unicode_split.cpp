// A test oracle: llama.cpp's own unicode_regex_split (src/unicode.cpp, compiled beside this
// file by crates/ggufkit/tests/pretokenizer_llama_cpp.rs) run on cases read from stdin.
//
// With `--time N`, each case is split N times and the line is the fastest run's nanoseconds
// instead (benches/pretokenize.rs prints it beside ggufkit's).
//
// Input, little-endian: u32 number of cases; per case u32 number of regexes, each as u32 length
// and bytes, then the text as u32 length and bytes. Output: one line per case, the byte length of
// each word unicode_regex_split returns (byte_encode false), space-separated, or "ERROR what".
#include "unicode.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <cstring>
#include <string>
#include <vector>

static bool read_u32(uint32_t & v) {
    unsigned char b[4];
    if (fread(b, 1, 4, stdin) != 4) {
        return false;
    }
    v = b[0] | (b[1] << 8) | (b[2] << 16) | ((uint32_t) b[3] << 24);
    return true;
}

static bool read_str(std::string & s) {
    uint32_t n;
    if (!read_u32(n)) {
        return false;
    }
    s.resize(n);
    return n == 0 || fread(&s[0], 1, n, stdin) == n;
}

int main(int argc, char ** argv) {
    const int repeat = argc > 2 && strcmp(argv[1], "--time") == 0 ? atoi(argv[2]) : 0;
    uint32_t cases;
    if (!read_u32(cases)) {
        return 2;
    }
    for (uint32_t c = 0; c < cases; ++c) {
        uint32_t n_regex;
        if (!read_u32(n_regex)) {
            return 2;
        }
        std::vector<std::string> regexes(n_regex);
        for (auto & r : regexes) {
            if (!read_str(r)) {
                return 2;
            }
        }
        std::string text;
        if (!read_str(text)) {
            return 2;
        }
        if (repeat > 0) {
            long long best = -1;
            for (int r = 0; r < repeat; ++r) {
                const auto t0 = std::chrono::steady_clock::now();
                const auto words = unicode_regex_split(text, regexes, false);
                const auto t1 = std::chrono::steady_clock::now();
                const long long ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
                if (best < 0 || ns < best) {
                    best = ns;
                }
            }
            printf("%lld\n", best);
            fflush(stdout);
            continue;
        }
        try {
            const auto words = unicode_regex_split(text, regexes, false);
            std::string line;
            for (size_t i = 0; i < words.size(); ++i) {
                if (i) {
                    line += ' ';
                }
                line += std::to_string(words[i].size());
            }
            printf("%s\n", line.c_str());
        } catch (const std::exception & e) {
            printf("ERROR %s\n", e.what());
        }
        fflush(stdout);
    }
    return 0;
}
