// kmerbloom's library: the entry points of count, estimate, filter, the
// filter files (build, query, merge) and the profiling after the count (set
// operations, het-mer pairs, an assembly's QV), with their options and
// results.
//
//   #include <kmerbloom/kmerbloom.hpp>
//   kmerbloom::CountOptions o;                 // inputs, k, threads, -M ...
//   o.inputs = {"reads.fq.gz"};
//   kmerbloom::count_kmers(o, [](std::string_view kmer, uint64_t count) { ... });
//   o.output = "solid.kff";                    // or the library writes them:
//   kmerbloom::count_kmers(o);                 // TSV, FASTA or KFF, as the name says
//
// Built with CMake: find_package(kmerbloom) and link kmerbloom::kmerbloom
// (test/example/ builds a program so against the installed library); the
// headers included here, and those they include, are what is installed. The
// library never prints or exits: errors are exceptions (common/error.hpp,
// whose classes the command line maps to its exit codes). Each entry point
// runs the threads its options ask for and joins them before it returns.
#pragma once

// InputError, OutputError, FilterFileError, BudgetError
#include "common/error.hpp"
// count_kmers: the solid k-mers, their histogram and statistics
#include "count/counter.hpp"
// merge_count_files: the k-mer merge of merge-counts
#include "count/merge_counts.hpp"
// estimate_kmers: distinct k-mers and the low histogram rows, sampled
#include "estimate/cardinality.hpp"
// build_filter, open_filter, query_reads, FilterCombiner: filter files (.kbf)
#include "kbf/kbf.hpp"
// filter_reads: digital normalization and weak-read trimming
#include "normalize/read_filter.hpp"
// SetOperation: union, intersection, difference, subtraction of count files
#include "profile/set_ops.hpp"
// find_hetmers: het-mer pairs binned for smudgeplot
#include "profile/hetmers.hpp"
// assess_assembly: an assembly's QV and completeness (Merqury's definitions)
#include "profile/assembly_qv.hpp"
