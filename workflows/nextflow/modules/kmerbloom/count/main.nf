// kmerbloom count as an nf-core style module: solid k-mers, histogram and
// statistics of one sample. ext.args takes any other count option, e.g.
// '-k 25 --min-count 3' or '--partition 0/4' (with ext.prefix per partition).
process KMERBLOOM_COUNT {
    tag "$meta.id"
    label 'process_medium'

    // kmerbloom is not yet on Bioconda nor in a BioContainer: environment.yml
    // names the package it will have. The image: `podman build -t
    // kmerbloom:0.1.0 .` (or docker build) in the kmerbloom sources, the
    // Containerfile there; without a container engine, kmerbloom on PATH.
    conda "${moduleDir}/environment.yml"
    container 'kmerbloom:0.1.0'

    input:
    tuple val(meta), path(reads)

    output:
    tuple val(meta), path("*.solid.tsv.gz"), emit: kmers
    tuple val(meta), path("*_jf.hist")     , emit: histo
    tuple val(meta), path("*.stats.json")  , emit: stats
    tuple val(meta), path("*_mqc.json")    , emit: multiqc   // MultiQC custom content: general stats, spectrum
    path "versions.yml"                    , emit: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    def prefix = task.ext.prefix ?: "${meta.id}"
    def memory = task.memory ? "-M ${task.memory.toMega()}M" : ''
    """
    kmerbloom count \\
        $args \\
        -t $task.cpus \\
        $memory \\
        -o ${prefix}.solid.tsv.gz \\
        --histo ${prefix}_jf.hist \\
        --stats ${prefix}.stats.json \\
        --sample ${prefix} \\
        $reads

    cat <<-END_VERSIONS > versions.yml
    "${task.process}":
        kmerbloom: \$(kmerbloom --version | sed 's/^kmerbloom //')
    END_VERSIONS
    """

    stub:
    def prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo -n | gzip > ${prefix}.solid.tsv.gz
    touch ${prefix}_jf.hist
    echo '{}' > ${prefix}.stats.json
    echo '{}' > ${prefix}.stats_mqc.json
    echo '{}' > ${prefix}.stats_spectrum_mqc.json

    cat <<-END_VERSIONS > versions.yml
    "${task.process}":
        kmerbloom: \$(kmerbloom --version | sed 's/^kmerbloom //')
    END_VERSIONS
    """
}
