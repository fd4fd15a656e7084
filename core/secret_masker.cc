#include "core/secret_masker.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace candor {

void SecretMasker::add(std::string_view value) {
  if (std::size_t nl = value.find('\n'); nl != std::string_view::npos) {
    std::string_view line = value.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    add(line);
    add(value.substr(nl + 1));
    return;
  }
  if (value.size() < kMinLength) return;
  if (std::find(values_.begin(), values_.end(), value) != values_.end()) return;
  auto index = static_cast<std::uint32_t>(values_.size());
  values_.emplace_back(value);
  Candidate c{window(value.data()), index};
  candidates_.insert(std::upper_bound(candidates_.begin(), candidates_.end(), c), c);
  std::size_t b = bucket(c.prefix);
  filter_[b / 64] |= std::uint64_t{1} << (b % 64);
}

std::size_t SecretMasker::match_end(std::string_view text, std::size_t at) const {
  std::uint64_t w = window(text.data() + at);
  std::size_t end = 0;
  auto first = std::lower_bound(candidates_.begin(), candidates_.end(), Candidate{w, 0});
  for (auto it = first; it != candidates_.end() && it->prefix == w; ++it) {
    const std::string& v = values_[it->index];
    if (v.size() <= text.size() - at && text.compare(at, v.size(), v) == 0) end = std::max(end, at + v.size());
  }
  return end;
}

std::string SecretMasker::mask(std::string_view text) const {
  std::string out;
  if (values_.empty() || text.size() < kMinLength) return std::string(text);
  std::size_t copied = 0;                                         // text before this is in `out`
  std::size_t open_start = std::string_view::npos, open_end = 0;  // the masked span being extended
  auto close = [&] {
    out.append(text.substr(copied, open_start - copied));
    out += kMask;
    copied = open_end;
  };
  for (std::size_t at = 0; at + kMinLength <= text.size(); ++at) {
    if (!may_start(text.data() + at)) continue;
    std::size_t end = match_end(text, at);
    if (end == 0) continue;
    if (open_start != std::string_view::npos && at <= open_end) {
      open_end = std::max(open_end, end);
      continue;
    }
    if (open_start != std::string_view::npos) close();
    open_start = at;
    open_end = end;
  }
  if (open_start == std::string_view::npos) return std::string(text);
  close();
  out.append(text.substr(copied));
  return out;
}

bool SecretMasker::mask_in_place(std::string& text) const {
  if (!holds_secret(text)) return false;
  text = mask(text);
  return true;
}

bool SecretMasker::holds_secret(std::string_view text) const {
  if (values_.empty()) return false;
  for (std::size_t at = 0; at + kMinLength <= text.size(); ++at) {
    if (may_start(text.data() + at) && match_end(text, at) != 0) return true;
  }
  return false;
}

void SecretMasker::mask_json(nlohmann::json& j) const {
  if (values_.empty()) return;
  std::vector<nlohmann::json*> stack = {&j};
  while (!stack.empty()) {
    nlohmann::json* node = stack.back();
    stack.pop_back();
    if (node->is_string()) {
      mask_in_place(node->get_ref<std::string&>());
    } else if (node->is_array()) {
      for (auto& item : *node) stack.push_back(&item);
    } else if (node->is_object()) {
      std::vector<std::string> renamed;  // keys that hold a value: rare, so moved only when found
      for (auto it = node->begin(); it != node->end(); ++it) {
        if (holds_secret(it.key())) renamed.push_back(it.key());
      }
      for (const auto& key : renamed) {
        nlohmann::json moved = std::move((*node)[key]);
        node->erase(key);
        (*node)[mask(key)] = std::move(moved);
      }
      for (auto& item : node->items()) stack.push_back(&item.value());
    }
  }
}

}  // namespace candor
