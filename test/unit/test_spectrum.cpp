// analyze_spectrum on synthetic spectra with a known genome size and coverage
// (expected Poisson values and seeded samples, errors, repeats, a diploid),
// on flat, shallow, monotone and empty ones, and on the exact spectrum of the
// 100x E. coli benchmark (true genome 4,938,920 bp); the JSON and file forms
// of the histogram.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "seqio/reader.hpp"
#include "report/spectrum.hpp"

using namespace kmerbloom;
namespace fs = std::filesystem;

namespace {

// The 31-mer spectrum of the 100x E. coli benchmark (reads of E. coli 536,
// 4,938,920 bp; kmerbloom count -k 31): its non-zero rows as "count frequency"
// pairs. Row 1 is the Bloom gate's estimate, the others are exact.
const char* const kEcoli100x =
    "1 23191925 2 623951 3 15838 4 694 5 56 6 12 7 5 8 7 9 9 10 4 11 3 "
    "12 2 13 4 14 4 15 3 17 2 18 1 19 11 20 8 21 12 22 8 23 1 "
    "24 2 25 1 26 15 27 14 28 11 29 11 30 17 31 18 32 17 33 9 34 12 "
    "35 18 36 28 37 20 38 4 39 16 40 28 41 44 42 68 43 125 44 200 45 271 "
    "46 399 47 690 48 1077 49 1579 50 2439 51 3506 52 5092 53 6975 54 9885 55 12995 56 17362 "
    "57 22739 58 30002 59 38386 60 48579 61 59573 62 71953 63 85287 64 99958 65 115887 66 132065 67 149763 "
    "68 165041 69 179847 70 191540 71 203686 72 213563 73 219282 74 224060 75 224369 76 220959 77 214737 78 207092 "
    "79 196350 80 183482 81 170318 82 156489 83 140504 84 125517 85 110555 86 96058 87 82271 88 69521 89 58689 "
    "90 49092 91 40629 92 32554 93 26073 94 20539 95 16495 96 12634 97 9894 98 7527 99 5658 100 4361 "
    "101 3211 102 2313 103 1672 104 1323 105 883 106 650 107 387 108 273 109 181 110 136 111 72 "
    "112 65 113 41 114 43 115 18 116 20 117 26 118 22 119 31 120 56 121 52 122 63 "
    "123 58 124 85 125 118 126 136 127 170 128 190 129 250 130 282 131 292 132 383 133 411 "
    "134 433 135 451 136 504 137 518 138 585 139 619 140 627 141 719 142 753 143 772 144 742 "
    "145 872 146 834 147 846 148 849 149 894 150 955 151 923 152 878 153 888 154 872 155 868 "
    "156 813 157 706 158 720 159 600 160 575 161 520 162 539 163 441 164 417 165 407 166 370 "
    "167 330 168 307 169 264 170 215 171 200 172 164 173 151 174 121 175 114 176 102 177 71 "
    "178 49 179 54 180 37 181 34 182 19 183 27 184 25 185 18 186 8 187 7 188 6 "
    "189 5 190 4 191 4 192 3 193 7 194 10 195 15 196 9 197 21 198 19 199 20 "
    "200 18 201 23 202 17 203 32 204 29 205 40 206 29 207 47 208 43 209 58 210 60 "
    "211 52 212 52 213 74 214 74 215 95 216 59 217 91 218 84 219 71 220 85 221 102 "
    "222 96 223 88 224 82 225 93 226 95 227 107 228 91 229 106 230 101 231 92 232 98 "
    "233 112 234 88 235 77 236 72 237 63 238 60 239 65 240 53 241 57 242 37 243 41 "
    "244 39 245 43 246 39 247 38 248 37 249 23 250 26 251 16 252 18 253 11 254 8 "
    "255 4 256 11 257 2 258 2 259 3 261 1 263 3 264 1 265 3 266 1 267 1 "
    "268 4 269 4 270 1 271 6 272 5 273 7 274 11 275 8 276 9 277 11 278 14 "
    "279 19 280 19 281 26 282 13 283 24 284 25 285 30 286 28 287 34 288 34 289 43 "
    "290 33 291 26 292 22 293 25 294 14 295 22 296 25 297 22 298 23 299 20 300 12 "
    "301 11 302 15 303 14 304 17 305 12 306 8 307 14 308 9 309 12 310 8 311 13 "
    "312 14 313 10 314 10 315 14 316 7 317 15 318 7 319 1 320 4 321 2 322 7 "
    "323 4 324 2 325 6 326 2 328 1 329 1 331 1 332 1 334 2 335 1 336 1 "
    "337 1 340 1 349 1 351 1 354 1 355 2 356 3 357 2 358 5 359 1 360 6 "
    "361 7 362 12 363 10 364 15 365 17 366 15 367 21 368 18 369 19 370 13 371 9 "
    "372 14 373 9 374 15 375 12 376 13 377 16 378 10 379 18 380 17 381 14 382 15 "
    "383 18 384 13 385 9 386 12 387 8 388 7 389 10 390 11 391 10 392 7 393 13 "
    "394 5 395 6 396 4 397 2 398 2 399 4 400 3 401 4 402 5 403 4 404 2 "
    "405 8 406 10 407 10 408 6 409 4 410 7 411 5 412 5 413 7 414 7 415 5 "
    "416 9 417 10 418 18 419 15 420 14 421 16 422 19 423 15 424 19 425 26 426 14 "
    "427 25 428 16 429 29 430 19 431 18 432 22 433 13 434 26 435 28 436 32 437 32 "
    "438 38 439 29 440 53 441 37 442 34 443 36 444 42 445 48 446 42 447 53 448 48 "
    "449 43 450 51 451 47 452 50 453 32 454 25 455 52 456 49 457 34 458 47 459 43 "
    "460 32 461 33 462 39 463 38 464 38 465 39 466 39 467 31 468 29 469 37 470 32 "
    "471 32 472 35 473 24 474 38 475 30 476 24 477 17 478 25 479 27 480 24 481 20 "
    "482 29 483 36 484 40 485 44 486 48 487 41 488 24 489 40 490 22 491 37 492 31 "
    "493 31 494 22 495 33 496 42 497 39 498 39 499 39 500 38 501 41 502 36 503 51 "
    "504 57 505 64 506 69 507 65 508 60 509 59 510 69 511 60 512 60 513 67 514 59 "
    "515 55 516 60 517 57 518 46 519 51 520 60 521 51 522 75 523 54 524 64 525 49 "
    "526 37 527 45 528 44 529 43 530 45 531 35 532 38 533 29 534 25 535 44 536 26 "
    "537 28 538 33 539 31 540 39 541 36 542 40 543 34 544 22 545 40 546 43 547 34 "
    "548 37 549 38 550 49 551 35 552 21 553 36 554 37 555 27 556 27 557 32 558 23 "
    "559 26 560 32 561 31 562 37 563 32 564 33 565 29 566 16 567 15 568 27 569 25 "
    "570 22 571 20 572 17 573 12 574 14 575 9 576 14 577 12 578 16 579 15 580 12 "
    "581 12 582 16 583 5 584 22 585 11 586 10 587 11 588 9 589 7 590 5 591 6 "
    "592 9 593 5 594 5 595 11 596 5 597 7 598 8 599 8 600 6 601 4 602 6 "
    "603 10 604 4 605 4 606 8 607 9 608 7 609 8 610 7 611 3 612 11 613 7 "
    "614 4 615 5 616 5 617 2 618 2 619 4 620 3 621 2 622 4 624 2 625 6 "
    "626 4 627 4 628 3 629 5 630 5 631 7 632 4 633 5 634 4 635 9 636 8 "
    "637 8 638 3 639 10 640 4 641 5 642 5 643 6 644 9 645 8 646 3 647 6 "
    "648 7 649 7 650 4 651 1 652 10 653 6 654 3 655 7 656 9 657 3 658 7 "
    "659 3 660 12 661 9 662 15 663 9 664 5 665 17 666 13 667 9 668 13 669 12 "
    "670 11 671 9 672 19 673 7 674 17 675 13 676 14 677 16 678 9 679 8 680 8 "
    "681 6 682 6 683 5 684 10 685 8 686 8 687 7 688 8 689 6 690 8 691 5 "
    "692 7 693 5 694 4 695 7 696 4 697 7 698 4 699 9 700 2 701 6 702 7 "
    "703 7 704 5 705 5 706 4 707 6 708 6 709 5 710 9 711 6 712 7 713 11 "
    "714 13 715 6 716 8 717 7 718 3 719 9 720 11 721 6 722 10 723 7 724 6 "
    "725 6 726 7 727 6 728 9 729 8 730 9 731 9 732 4 733 12 734 12 735 7 "
    "736 9 737 9 738 5 739 12 740 16 741 10 742 7 743 18 744 14 745 11 746 12 "
    "747 13 748 9 749 18 750 13 751 9 752 14 753 11 754 21 755 16 756 25 757 12 "
    "758 21 759 21 760 14 761 21 762 16 763 18 764 28 765 17 766 12 767 15 768 18 "
    "769 16 770 18 771 10 772 9 773 8 774 5 775 12 776 4 777 14 778 10 779 7 "
    "780 12 781 8 782 9 783 9 784 3 785 5 786 6 787 8 788 6 789 5 790 4 "
    "791 4 792 2 793 1 794 1 795 1 796 2 798 2 799 2 800 1 803 1 805 1 "
    "806 1 807 2 808 3 810 1 811 1 812 2 813 4 815 1 816 2 817 1 818 3 "
    "819 4 820 2 821 4 822 2 823 4 824 3 825 4 826 6 827 5 828 10 829 9 "
    "830 10 831 3 832 8 833 6 834 3 835 7 836 8 837 6 838 5 839 4 840 5 "
    "841 4 842 4 843 4 844 4 845 9 846 4 847 4 848 10 849 7 850 12 851 5 "
    "852 3 853 5 854 5 855 6 856 8 857 4 858 6 859 4 860 4 861 3 862 6 "
    "863 2 864 4 865 3 866 4 867 2 868 5 869 4 870 6 871 6 872 4 873 3 "
    "874 4 875 2 876 4 877 8 878 4 880 1 881 1 883 1 887 1 888 2 889 1 "
    "890 3 891 2 892 2 894 3 897 1 935 1 1321 1 1332 1 1397 1 1408 1 1410 1 "
    "1551 1 2102 1 2365 1 2368 1 2370 1 2382 1 ";

std::vector<uint64_t> parse_rows(const char* text) {
  std::istringstream in(text);
  std::vector<uint64_t> h(1, 0);
  uint64_t c = 0, f = 0;
  while (in >> c >> f) {
    if (h.size() <= c) h.resize(c + 1, 0);
    h[c] = f;
  }
  return h;
}

struct Synthetic {
  std::vector<uint64_t> h;
  double genome = 0;    // genome positions (k-mers), repeats included
  uint64_t errors = 0;  // distinct erroneous k-mers
};

// Expected spectrum: `single` single-copy k-mers at coverage lambda, `dup`
// two-copy k-mers at 2 lambda, `het` heterozygous k-mers at lambda / 2, and
// `errors` error k-mers with a geometric count distribution (ratio q).
Synthetic expected(double lambda, double single, double dup = 0, double het = 0, double errors = 0, double q = 0.03,
                   size_t rows = 1000) {
  Synthetic s;
  s.h.assign(rows + 1, 0);
  auto pois = [](double l, size_t c) {
    return std::exp(static_cast<double>(c) * std::log(l) - l - std::lgamma(static_cast<double>(c) + 1));
  };
  for (size_t c = 1; c <= rows; ++c) {
    const double v = single * pois(lambda, c) + dup * pois(2 * lambda, c) + het * pois(lambda / 2, c) +
                     errors * (1 - q) * std::pow(q, static_cast<double>(c) - 1);
    s.h[c] = static_cast<uint64_t>(std::llround(v));
  }
  s.genome = single + 2 * dup + het;
  s.errors = static_cast<uint64_t>(errors);
  return s;
}

// A sampled spectrum (fixed seed): every genomic k-mer draws its count.
Synthetic sampled(double lambda, uint64_t single, uint64_t errors, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::poisson_distribution<uint32_t> cov(lambda);
  std::geometric_distribution<uint32_t> err(0.95);
  Synthetic s;
  s.h.assign(4 * static_cast<size_t>(lambda) + 50, 0);
  auto add = [&](uint32_t c) {
    if (c == 0) return;
    if (c >= s.h.size()) s.h.resize(c + 1, 0);
    ++s.h[c];
  };
  for (uint64_t i = 0; i < single; ++i) add(cov(rng));
  for (uint64_t i = 0; i < errors; ++i) add(1 + err(rng));
  s.genome = static_cast<double>(single);
  s.errors = errors;
  return s;
}

bool any_contains(const std::vector<std::string>& v, const std::string& word) {
  for (const auto& s : v)
    if (s.find(word) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(Spectrum, EcoliBenchmarkGenomeSizeWithin5Percent) {
  const std::vector<uint64_t> h = parse_rows(kEcoli100x);
  SpectrumOptions o;
  o.row1_estimated = true;
  const SpectrumAnalysis a = analyze_spectrum(h, o);
  ASSERT_TRUE(a.has_peak);
  EXPECT_TRUE(a.reliable) << (a.warnings.empty() ? "" : a.warnings[0]);
  EXPECT_NEAR(a.genome_size / 4938920.0, 1.0, 0.05) << a.genome_size;
  EXPECT_NEAR(a.genome_size / 4938920.0, 1.0, 0.01) << "the refined peak should do better than 5%";
  // The expected values come from the rows themselves, not from an earlier
  // run: the first raw minimum after row 1 (m), the highest row above it (the
  // peak), the mean count of the rows around the peak (the Poisson mean: the
  // coverage), the share of distinct k-mers below the trough.
  size_t m = 2;
  while (m + 1 < h.size() && h[m + 1] <= h[m]) ++m;
  size_t peak = m + 1;
  for (size_t c = m + 1; c + 1 < h.size(); ++c)
    if (h[c] > h[peak]) peak = c;
  long double n = 0, sum = 0, all = 0, below = 0;
  for (size_t c = m + 1; c <= peak * 3 / 2; ++c) {
    n += static_cast<long double>(h[c]);
    sum += static_cast<long double>(c) * static_cast<long double>(h[c]);
  }
  for (size_t c = 1; c < h.size(); ++c) all += static_cast<long double>(h[c]);
  for (size_t c = 1; c < m; ++c) below += static_cast<long double>(h[c]);
  EXPECT_EQ(a.peak, peak);
  EXPECT_NEAR(a.peak_coverage, static_cast<double>(sum / n), 0.5);
  // The trough sits in the valley between the errors and the peak: rows there
  // hold a handful of k-mers, so where exactly barely moves the shares.
  EXPECT_GT(a.trough, 1u);
  EXPECT_LT(a.trough, peak / 2);
  EXPECT_LE(h[a.trough], 10 * h[m] + 10);
  EXPECT_NEAR(a.error_distinct_share, static_cast<double>(below / all), 1e-4);
  EXPECT_GT(a.error_distinct_share, static_cast<double>(h[1]) / static_cast<double>(all));  // singletons and more
  EXPECT_LT(a.error_kmer_share, 0.08);
  EXPECT_TRUE(any_contains(a.notes, "estimated"));
}

TEST(Spectrum, PoissonWithErrorsRecoversGenomeAndCoverage) {
  for (double lambda : {8.0, 12.0, 20.0, 30.0, 50.0, 100.0}) {
    SCOPED_TRACE(lambda);
    const Synthetic s = expected(lambda, 2e6, 0, 0, 20e6, 0.03);
    const SpectrumAnalysis a = analyze_spectrum(s.h);
    ASSERT_TRUE(a.has_peak);
    EXPECT_TRUE(a.reliable) << (a.warnings.empty() ? "" : a.warnings[0]);
    EXPECT_NEAR(a.peak_coverage / lambda, 1.0, 0.03);
    EXPECT_NEAR(a.genome_size / s.genome, 1.0, 0.03);
    // Errors: nearly all error k-mers fall below the trough, few genomic ones do.
    EXPECT_NEAR(static_cast<double>(a.error_distinct) / static_cast<double>(s.errors), 1.0, 0.02);
    EXPECT_LT(a.trough, static_cast<uint64_t>(lambda));
  }
}

TEST(Spectrum, RepeatsCountInTheGenomeSize) {
  const Synthetic s = expected(40, 4e6, 3e5, 0, 30e6);
  const SpectrumAnalysis a = analyze_spectrum(s.h);
  ASSERT_TRUE(a.has_peak);
  EXPECT_NEAR(a.peak_coverage, 40, 1);
  EXPECT_NEAR(a.genome_size / s.genome, 1.0, 0.03);
  EXPECT_EQ(a.double_peak_coverage, 0) << "a small two-copy bump is no diploid's homozygous peak";
}

TEST(Spectrum, SampledSpectraWithFixedSeeds) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    for (double lambda : {15.0, 40.0}) {
      SCOPED_TRACE(std::to_string(seed) + " " + std::to_string(lambda));
      const Synthetic s = sampled(lambda, 300000, 3000000, seed);
      const SpectrumAnalysis a = analyze_spectrum(s.h);
      ASSERT_TRUE(a.has_peak);
      EXPECT_TRUE(a.reliable);
      EXPECT_NEAR(a.peak_coverage / lambda, 1.0, 0.04);
      EXPECT_NEAR(a.genome_size / s.genome, 1.0, 0.04);
    }
  }
}

TEST(Spectrum, DiploidHalfPeakIsANote) {
  // Homozygous k-mers at 2 x 25 = 50, heterozygous ones at 25.
  const Synthetic s = expected(50, 3e6, 0, 8e5, 20e6);
  const SpectrumAnalysis a = analyze_spectrum(s.h);
  ASSERT_TRUE(a.has_peak);
  EXPECT_NEAR(a.peak_coverage, 50, 1.5);
  EXPECT_NEAR(a.half_peak_coverage, 25, 1.5);
  EXPECT_TRUE(any_contains(a.notes, "heterozygous"));
  EXPECT_TRUE(a.reliable);
  // Highly heterozygous: the half peak is the higher one; the main peak then
  // sits at 25 and the homozygous one, at twice it, is noted.
  const Synthetic h = expected(50, 1e6, 0, 3e6, 20e6);
  const SpectrumAnalysis b = analyze_spectrum(h.h);
  EXPECT_NEAR(b.peak_coverage, 25, 1.5);
  EXPECT_NEAR(b.double_peak_coverage, 50, 2);
  EXPECT_TRUE(any_contains(b.notes, "about half"));
}

TEST(Spectrum, ShallowSpectrumIsUnreliable) {
  const Synthetic s = expected(3.5, 2e6, 0, 0, 5e6, 0.05);
  const SpectrumAnalysis a = analyze_spectrum(s.h);
  EXPECT_FALSE(a.reliable);
  EXPECT_FALSE(a.warnings.empty());
}

TEST(Spectrum, FlatSpectrumIsUnreliable) {
  std::vector<uint64_t> h(201, 0);
  std::mt19937_64 rng(7);
  for (size_t c = 1; c <= 200; ++c) h[c] = 1000 + rng() % 200;  // flat with noise
  const SpectrumAnalysis a = analyze_spectrum(h);
  EXPECT_FALSE(a.reliable);
  EXPECT_TRUE(any_contains(a.warnings, "flat") || any_contains(a.warnings, "no error trough")) << a.warnings.size();
}

TEST(Spectrum, MonotoneSpectrumHasNoTrough) {
  std::vector<uint64_t> h = {0, 100000, 5000, 300, 20, 3, 1};
  const SpectrumAnalysis a = analyze_spectrum(h);
  EXPECT_FALSE(a.has_trough);
  EXPECT_FALSE(a.has_peak);
  EXPECT_FALSE(a.reliable);
  EXPECT_EQ(a.genome_size, 0);
  EXPECT_EQ(a.kmers_distinct, 105324u);
  EXPECT_TRUE(any_contains(a.warnings, "no error trough"));
}

TEST(Spectrum, EmptyAndTinyHistograms) {
  for (const std::vector<uint64_t>& h :
       {std::vector<uint64_t>{}, std::vector<uint64_t>{0}, std::vector<uint64_t>{0, 0, 0}, std::vector<uint64_t>{0, 5},
        std::vector<uint64_t>{0, 0, 7}}) {
    const SpectrumAnalysis a = analyze_spectrum(h);
    EXPECT_FALSE(a.reliable);
    EXPECT_FALSE(a.has_peak);
  }
}

TEST(Spectrum, NoErrorComponent) {
  Synthetic s = expected(30, 1e6);  // no errors: f(1) is about 0
  const SpectrumAnalysis a = analyze_spectrum(s.h);
  ASSERT_TRUE(a.has_peak);
  EXPECT_NEAR(a.genome_size / s.genome, 1.0, 0.03);
  EXPECT_EQ(a.error_distinct, 0u);
}

TEST(Spectrum, PeakAtTheLastRowIsUnreliable) {
  Synthetic s = expected(80, 1e6, 0, 0, 1e7, 0.03, 60);  // histogram cut below the peak
  const SpectrumAnalysis a = analyze_spectrum(s.h);
  EXPECT_FALSE(a.reliable);
  EXPECT_TRUE(any_contains(a.warnings, "last row"));
}

TEST(Spectrum, OverflowRowTakesItsOccurrencesFromTheTotal) {
  Synthetic s = expected(30, 1e6, 0, 0, 1e7, 0.03, 100);
  // 1000 k-mers seen 500 times each land in the overflow row 101.
  s.h.resize(102, 0);
  s.h[101] = 1000;
  uint64_t occ = 0;
  for (size_t c = 1; c <= 100; ++c) occ += c * s.h[c];
  SpectrumOptions o;
  o.last_row_overflow = true;
  o.total_kmers = occ + 1000 * 500;
  const SpectrumAnalysis a = analyze_spectrum(s.h, o);
  ASSERT_TRUE(a.has_peak);
  EXPECT_EQ(a.overflow_row, 101u);
  EXPECT_LT(a.peak, 101u);
  EXPECT_NEAR(a.genome_size / (s.genome + 1000 * 500 / 30.0), 1.0, 0.03);
  EXPECT_TRUE(any_contains(a.notes, "overflow"));
  o.total_kmers = 0;  // unknown: counted as 101 each, a lower bound
  const SpectrumAnalysis b = analyze_spectrum(s.h, o);
  EXPECT_LT(b.genome_size, a.genome_size);
  EXPECT_TRUE(any_contains(b.notes, "lower bound"));
}

TEST(Spectrum, JsonHasTheNumbersAndNullsWithoutAPeak) {
  const Synthetic s = expected(30, 1e6, 0, 0, 1e7);
  const nlohmann::json j = spectrum_json(analyze_spectrum(s.h));
  EXPECT_TRUE(j["reliable"].get<bool>());
  EXPECT_NEAR(j["genome_size"].get<double>(), 1e6, 3e4);
  EXPECT_NEAR(j["peak_coverage"].get<double>(), 30, 1);
  for (const char* key :
       {"error_trough", "peak", "error_kmers_distinct_share", "error_kmers_share", "warnings", "notes"})
    EXPECT_TRUE(j.contains(key)) << key;
  const nlohmann::json none = spectrum_json(analyze_spectrum({0, 10, 2, 1}));
  EXPECT_TRUE(none["genome_size"].is_null());
  EXPECT_TRUE(none["peak"].is_null());
  EXPECT_FALSE(none["reliable"].get<bool>());
}

TEST(SpectrumHistogram, RowsRoundTripThroughJson) {
  const std::vector<uint64_t> h = {0, 50, 0, 7, 0, 0, 2};
  const nlohmann::json rows = histogram_rows_json(h);
  EXPECT_EQ(rows.dump(), "[[1,50],[3,7],[6,2]]");
  EXPECT_EQ(histogram_from_rows(rows), h);
  EXPECT_THROW(histogram_from_rows(nlohmann::json::parse("[[1,2,3]]")), std::invalid_argument);
  EXPECT_THROW(histogram_from_rows(nlohmann::json::parse("[[1,-2]]")), std::invalid_argument);
  EXPECT_THROW(histogram_from_rows(nlohmann::json::parse("{}")), std::invalid_argument);
}

TEST(SpectrumHistogram, ReadsJellyfishFilesAndNamesBadLines) {
  const fs::path dir = fs::temp_directory_path() / ("kb-spectrum-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  EXPECT_EQ(read_histogram_file(write("ok", "1 50\n2 0\n3\t7\r\n\n6 2\n")),
            (std::vector<uint64_t>{0, 50, 0, 7, 0, 0, 2}));
  try {
    read_histogram_file(write("bad", "1 50\n2 x\n"));
    ADD_FAILURE() << "no throw";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_histogram_file(write("neg", "1 -5\n")), InputError);
  EXPECT_THROW(read_histogram_file(write("empty", "")), InputError);
  EXPECT_THROW(read_histogram_file((dir / "missing").string()), InputError);
  fs::remove_all(dir);
}

TEST(SpectrumHistogram, OptionsFromStats) {
  const std::vector<uint64_t> h = {0, 10, 5, 0, 1};
  const auto stats =
      nlohmann::json::parse(R"({"kmers_total": 123, "histogram": {"overflow_row": 4, "estimated_rows": [1]}})");
  const SpectrumOptions o = spectrum_options_from_stats(stats, h);
  EXPECT_TRUE(o.last_row_overflow);
  EXPECT_TRUE(o.row1_estimated);
  EXPECT_EQ(o.total_kmers, 123u);
  const SpectrumOptions p =
      spectrum_options_from_stats(nlohmann::json::parse(R"({"histogram": {"overflow_row": 10001}})"), h);
  EXPECT_FALSE(p.last_row_overflow);
  EXPECT_FALSE(p.row1_estimated);
}

TEST(Spectrum, RandomHistogramsGiveFiniteConsistentAnswers) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint64_t> h(rng() % 300, 0);
    const int shape = round % 3;
    for (size_t c = 1; c < h.size(); ++c)
      h[c] = shape == 0 ? rng() % 1000 : shape == 1 ? (rng() % 4 == 0 ? rng() >> 20 : 0) : rng() % 3;
    SpectrumOptions o;
    o.last_row_overflow = rng() % 2;
    o.total_kmers = rng() % 2 ? rng() >> 30 : 0;
    const SpectrumAnalysis a = analyze_spectrum(h, o);
    ASSERT_TRUE(std::isfinite(a.genome_size) && a.genome_size >= 0);
    ASSERT_TRUE(std::isfinite(a.peak_coverage));
    ASSERT_TRUE(std::isfinite(a.error_distinct_share) && a.error_distinct_share >= 0 && a.error_distinct_share <= 1);
    ASSERT_EQ(a.reliable, a.warnings.empty());
    if (a.has_peak) {
      ASSERT_TRUE(a.has_trough);
      ASSERT_LT(a.trough, a.peak);
      ASSERT_GT(a.peak_coverage, static_cast<double>(a.trough));
      ASSERT_EQ(a.error_distinct + a.distinct_above_trough, a.kmers_distinct);
    }
  }
}
