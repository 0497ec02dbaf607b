// Edit distance for "did you mean ...?" hints on misspelt names (settings, columns, tables,
// functions). Names are short, so the quadratic algorithm is fine.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace shoal {

/// Levenshtein distance, ASCII case-insensitive.
int EditDistance(std::string_view a, std::string_view b);

/// The candidate closest to `name`, if it is close enough to be a plausible typo (distance at most
/// a third of the name's length, minimum 1, maximum 3); empty otherwise.
std::string ClosestMatch(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace shoal
