fn main() {
    std::process::exit(gpuform::cli::main());
}
