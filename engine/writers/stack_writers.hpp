#pragma once
// `perfcast stacks`: what each training stack runs (models/training_stack), as the markdown of
// docs/stacks.md or as JSON.
#include <string>

namespace perfcast {

std::string stacks_markdown();
std::string stacks_json();

}  // namespace perfcast
