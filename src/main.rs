//! The treeglass binary. Everything is in the library (`cli::entry`): the async code a binary
//! polls is compiled in the crate that polls it, so a thin binary compiles it once.

fn main() {
    treeglass::cli::entry::main()
}
