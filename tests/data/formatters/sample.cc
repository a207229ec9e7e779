// A small cache, written for the formatter tests (templates, namespaces, classes, lambdas).
#include <unordered_map>
#include <string>
#include <list>
#include <functional>

namespace cache {

template <typename K, typename V>
class Lru {
 public:
  explicit Lru(std::size_t capacity) : capacity_(capacity) {}
  bool Get(const K& key, V* value) {
    auto it = index_.find(key); if (it == index_.end()) return false;
    order_.splice(order_.begin(), order_, it->second); *value = it->second->second; return true;
  }
  void Put(const K& key, V value) {
    auto it = index_.find(key);
    if (it != index_.end()) { it->second->second = std::move(value); order_.splice(order_.begin(), order_, it->second); return; }
    order_.emplace_front(key, std::move(value)); index_[key] = order_.begin();
    if (order_.size() > capacity_) { index_.erase(order_.back().first); order_.pop_back(); }
  }
  std::size_t Size() const { return order_.size(); }
 private:
  std::size_t capacity_;
  std::list<std::pair<K, V> > order_;
  std::unordered_map<K, typename std::list<std::pair<K, V> >::iterator> index_;
};

std::string Describe(const Lru<int, std::string>& lru) {
  return "an LRU cache holding " + std::to_string(lru.Size()) + " entries, evicting the least recently used one first";
}

int CountIf(const std::list<int>& values, const std::function<bool(int)>& keep) {
  int n = 0; for (int v : values) { if (keep(v)) ++n; } return n;
}

}  // namespace cache

int main() {
  cache::Lru<int, std::string> lru(2);
  lru.Put(1, "one"); lru.Put(2, "two"); lru.Put(3, "three");
  std::string v;
  return lru.Get(1, &v) ? 1 : cache::CountIf({1, 2, 3, 4}, [](int x) { return x % 2 == 0 && x > 1; });
}
