// kmerbloom filter as an nf-core style module: the reads worth assembling
// (digital normalization; ext.args e.g. '--target-coverage 30' or
// '--drop-weak --min-count 3'). Paired samples (meta.single_end false, two
// files) stay paired.
process KMERBLOOM_FILTER {
    tag "$meta.id"
    label 'process_medium'

    // kmerbloom is not yet on Bioconda nor in a BioContainer: see environment.yml,
    // and the image of the Containerfile (as the count module says).
    conda "${moduleDir}/environment.yml"
    container 'kmerbloom:0.1.0'

    input:
    tuple val(meta), path(reads)

    output:
    tuple val(meta), path("*.kept*.fastq.gz"), emit: reads
    tuple val(meta), path("*.filter.json")   , emit: stats
    path "versions.yml"                      , emit: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    def prefix = task.ext.prefix ?: "${meta.id}"
    // The abundance sketch gets about 3/4 of the task's memory (read buffers take the rest).
    def memory = task.memory ? "-M ${(task.memory.toMega() * 3).intdiv(4)}M" : ''
    def outputs = meta.single_end ? "-o ${prefix}.kept.fastq.gz" : "-o ${prefix}_1.kept.fastq.gz -O ${prefix}_2.kept.fastq.gz"
    """
    kmerbloom filter \\
        $args \\
        -t $task.cpus \\
        $memory \\
        $outputs \\
        --stats ${prefix}.filter.json \\
        $reads

    cat <<-END_VERSIONS > versions.yml
    "${task.process}":
        kmerbloom: \$(kmerbloom --version | sed 's/^kmerbloom //')
    END_VERSIONS
    """

    stub:
    def prefix = task.ext.prefix ?: "${meta.id}"
    def names = meta.single_end ? "${prefix}.kept.fastq.gz" : "${prefix}_1.kept.fastq.gz ${prefix}_2.kept.fastq.gz"
    """
    for f in $names; do echo -n | gzip > \$f; done
    echo '{}' > ${prefix}.filter.json

    cat <<-END_VERSIONS > versions.yml
    "${task.process}":
        kmerbloom: \$(kmerbloom --version | sed 's/^kmerbloom //')
    END_VERSIONS
    """
}
