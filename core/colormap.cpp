#include "core/colormap.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "core/check.hpp"

// [SECTION] tables (256 sRGB entries each, hex "rrggbb", sampled from matplotlib 3.6)
// [SECTION] names and kinds
// [SECTION] scale and lookup

namespace posviz {

namespace {

// ---------------------------------------------------------------------------------------------
// [SECTION] tables
// ---------------------------------------------------------------------------------------------
// viridis, magma: matplotlib's listed data (van der Walt & Smith), rounded to 8 bits.
// rdbu: ColorBrewer RdBu (Brewer), reversed so t = 0 is blue and t = 1 is red, white at 0.5.
// coolwarm: Moreland's diverging map as matplotlib samples it.
// twilight: matplotlib's cyclic map, 256 samples over one period (t = k/256), so the table wraps.
// blues: ColorBrewer's sequential Blues (Brewer), white to navy, as matplotlib interpolates its nine
//   colours (tests/reference/blues_colormap.py prints the table): a light page's sequential map,
//   where the low end is paper.

// viridis: matplotlib
constexpr const char kViridisHex[] =
    "44015444025645045745055946075a46085c460a5d460b5e470d60470e61471063471164471365481467481668481769"
    "48186a481a6c481b6d481c6e481d6f481f70482071482173482374482475482576482677482878482979472a7a472c7a"
    "472d7b472e7c472f7d46307e46327e46337f463480453581453781453882443983443a83443b84433d84433e85423f85"
    "4240864241864142874144874045884046883f47883f48893e49893e4a893e4c8a3d4d8a3d4e8a3c4f8a3c508b3b518b"
    "3b528b3a538b3a548c39558c39568c38588c38598c375a8c375b8d365c8d365d8d355e8d355f8d34608d34618d33628d"
    "33638d32648e32658e31668e31678e31688e30698e306a8e2f6b8e2f6c8e2e6d8e2e6e8e2e6f8e2d708e2d718e2c718e"
    "2c728e2c738e2b748e2b758e2a768e2a778e2a788e29798e297a8e297b8e287c8e287d8e277e8e277f8e27808e26818e"
    "26828e26828e25838e25848e25858e24868e24878e23888e23898e238a8d228b8d228c8d228d8d218e8d218f8d21908d"
    "21918c20928c20928c20938c1f948c1f958b1f968b1f978b1f988b1f998a1f9a8a1e9b8a1e9c891e9d891f9e891f9f88"
    "1fa0881fa1881fa1871fa28720a38620a48621a58521a68522a78522a88423a98324aa8325ab8225ac8226ad8127ad81"
    "28ae8029af7f2ab07f2cb17e2db27d2eb37c2fb47c31b57b32b67a34b67935b77937b87838b9773aba763bbb753dbc74"
    "3fbc7340bd7242be7144bf7046c06f48c16e4ac16d4cc26c4ec36b50c46a52c56954c56856c66758c7655ac8645cc863"
    "5ec96260ca6063cb5f65cb5e67cc5c69cd5b6ccd5a6ece5870cf5773d05675d05477d1537ad1517cd2507fd34e81d34d"
    "84d44b86d54989d5488bd6468ed64590d74393d74195d84098d83e9bd93c9dd93ba0da39a2da37a5db36a8db34aadc32"
    "addc30b0dd2fb2dd2db5de2bb8de29bade28bddf26c0df25c2df23c5e021c8e020cae11fcde11dd0e11cd2e21bd5e21a"
    "d8e219dae319dde318dfe318e2e418e5e419e7e419eae51aece51befe51cf1e51df4e61ef6e620f8e621fbe723fde725";

// magma: matplotlib
constexpr const char kMagmaHex[] =
    "00000401000501010601010802010902020b02020d03030f03031204041405041606051806051a07061c08071e090720"
    "0a08220b09240c09260d0a290e0b2b100b2d110c2f120d31130d34140e36150e38160f3b180f3d19103f1a10421c1044"
    "1d11471e114920114b21114e22115024125325125527125829115a2a115c2c115f2d11612f1163311165331067341069"
    "36106b38106c390f6e3b0f703d0f713f0f72400f74420f75440f764510774710784910784a10794c117a4e117b4f127b"
    "51127c52137c54137d56147d57157e59157e5a167e5c167f5d177f5f187f601880621980641a80651a80671b80681c81"
    "6a1c816b1d816d1d816e1e81701f81721f817320817521817621817822817922827b23827c23827e2482802582812581"
    "8326818426818627818827818928818b29818c29818e2a81902a81912b81932b80942c80962c80982d80992d809b2e7f"
    "9c2e7f9e2f7fa02f7fa1307ea3307ea5317ea6317da8327daa337dab337cad347cae347bb0357bb2357bb3367ab5367a"
    "b73779b83779ba3878bc3978bd3977bf3a77c03a76c23b75c43c75c53c74c73d73c83e73ca3e72cc3f71cd4071cf4070"
    "d0416fd2426fd3436ed5446dd6456cd8456cd9466bdb476adc4869de4968df4a68e04c67e24d66e34e65e44f64e55064"
    "e75263e85362e95462ea5661eb5760ec5860ed5a5fee5b5eef5d5ef05f5ef1605df2625df2645cf3655cf4675cf4695c"
    "f56b5cf66c5cf66e5cf7705cf7725cf8745cf8765cf9785df9795df97b5dfa7d5efa7f5efa815ffb835ffb8560fb8761"
    "fc8961fc8a62fc8c63fc8e64fc9065fd9266fd9467fd9668fd9869fd9a6afd9b6bfe9d6cfe9f6dfea16efea36ffea571"
    "fea772fea973feaa74feac76feae77feb078feb27afeb47bfeb67cfeb77efeb97ffebb81febd82febf84fec185fec287"
    "fec488fec68afec88cfeca8dfecc8ffecd90fecf92fed194fed395fed597fed799fed89afdda9cfddc9efddea0fde0a1"
    "fde2a3fde3a5fde5a7fde7a9fde9aafdebacfcecaefceeb0fcf0b2fcf2b4fcf4b6fcf6b8fcf7b9fcf9bbfcfbbdfcfdbf";

// rdbu: matplotlib
constexpr const char kRdbuHex[] =
    "05306106326407346708366a09386d0a3b700c3d730d3f760e41790f437b10457e114781124984134c87144e8a15508d"
    "1752901854931956961a58991b5a9c1c5c9f1d5fa21e61a51f63a82065ab2267ac2369ad246aae266caf276eb02870b1"
    "2a71b22b73b32c75b42e77b52f79b5307ab6327cb7337eb83480b93681ba3783bb3885bc3a87bd3b88be3c8abe3e8cbf"
    "3f8ec0408fc14291c24393c34695c44997c54c99c64f9bc7529dc8569fc959a1ca5ca3cb5fa5cd62a7ce65a9cf68abd0"
    "6bacd16eaed271b0d375b2d478b4d57bb6d67eb8d781bad884bcd987beda8ac0db8dc2dc90c4dd93c6de96c7df98c8e0"
    "9bc9e09dcbe1a0cce2a2cde3a5cee3a7d0e4a9d1e5acd2e5aed3e6b1d5e7b3d6e8b6d7e8b8d8e9bbdaeabddbeac0dceb"
    "c2ddecc5dfecc7e0edcae1eecce2efcfe4efd1e5f0d2e6f0d4e6f1d5e7f1d7e8f1d8e9f1dae9f2dbeaf2ddebf2deebf2"
    "e0ecf3e1edf3e3edf3e4eef4e6eff4e7f0f4e9f0f4eaf1f5ecf2f5edf2f5eff3f5f0f4f6f2f5f6f3f5f6f5f6f7f6f7f7"
    "f7f6f6f7f5f4f8f4f2f8f3f0f8f2eff8f1edf9f0ebf9efe9f9eee7f9ede5f9ebe3faeae1fae9dffae8defae7dcfbe6da"
    "fbe5d8fbe4d6fbe3d4fce2d2fce0d0fcdfcffcdecdfdddcbfddcc9fddbc7fdd9c4fcd7c2fcd5bffcd3bcfbd0b9fbceb7"
    "fbccb4facab1fac8aff9c6acf9c4a9f9c2a7f8bfa4f8bda1f8bb9ef7b99cf7b799f7b596f6b394f6b191f6af8ef5ac8b"
    "f5aa89f5a886f4a683f3a481f2a17ff19e7df09c7bef9979ee9677ec9374eb9172ea8e70e98b6ee8896ce6866ae58368"
    "e48066e37e64e27b62e17860df765ede735cdd7059dc6e57db6b55da6853d86551d7634fd6604dd55d4cd35a4ad25849"
    "d05548cf5246ce4f45cc4c44cb4942c94741c84440c6413ec53e3dc43b3cc2383ac13639bf3338be3036bd2d35bb2a34"
    "ba2832b82531b72230b61f2eb41c2db3192cb1182bae172aab162aa81529a51429a213289f12289c1127991027960f27"
    "930e26900d268d0c258a0b25870a248409248108237f08237c07227906227605217304217003206d02206a011f67001f";

// coolwarm: matplotlib
constexpr const char kCoolwarmHex[] =
    "3b4cc03c4ec23d50c33e51c53f53c64055c84257c94358cb445acc455cce465ecf485fd14961d24a63d34b64d54c66d6"
    "4e68d84f69d9506bda516ddb536edd5470de5572df5673e05875e15977e35a78e45b7ae55d7ce65e7de75f7fe86180e9"
    "6282ea6384eb6485ec6687ed6788ee688aef6a8bef6b8df06c8ff16e90f26f92f37093f37295f47396f57597f67699f6"
    "779af7799cf87a9df87b9ff97da0f97ea1fa80a3fa81a4fb82a6fb84a7fc85a8fc86a9fc88abfd89acfd8badfd8caffe"
    "8db0fe8fb1fe90b2fe92b4fe93b5fe94b6ff96b7ff97b8ff98b9ff9abbff9bbcff9dbdff9ebeff9fbfffa1c0ffa2c1ff"
    "a3c2fea5c3fea6c4fea7c5fea9c6fdaac7fdabc8fdadc9fdaec9fcafcafcb1cbfcb2ccfbb3cdfbb5cdfab6cefab7cff9"
    "b9d0f9bad0f8bbd1f8bcd2f7bed2f6bfd3f6c0d4f5c1d4f4c3d5f4c4d5f3c5d6f2c6d6f1c7d7f0c9d7f0cad8efcbd8ee"
    "ccd9edcdd9eccedaebcfdaead1dae9d2dbe8d3dbe7d4dbe6d5dbe5d6dce4d7dce3d8dce2d9dce1dadce0dbdcdedcdddd"
    "dddcdcdedcdbdfdbd9e0dbd8e1dad6e2dad5e3d9d3e4d9d2e5d8d1e6d7cfe7d7cee8d6cce9d5cbead5c9ead4c8ebd3c6"
    "ecd3c5edd2c3edd1c2eed0c0efcfbfefcebdf0cdbbf1cdbaf1ccb8f2cbb7f2cab5f2c9b4f3c8b2f3c7b1f4c6aff4c5ad"
    "f5c4acf5c2aaf5c1a9f5c0a7f6bfa6f6bea4f6bda2f7bca1f7ba9ff7b99ef7b89cf7b79bf7b599f7b497f7b396f7b194"
    "f7b093f7af91f7ad90f7ac8ef7aa8cf7a98bf7a889f7a688f6a586f6a385f6a283f5a081f59f80f59d7ef59c7df49a7b"
    "f4987af39778f39577f39475f29274f29072f18f71f18d6ff08b6ef08a6cef886bee8669ee8468ed8366ec8165ec7f63"
    "eb7d62ea7b60e97a5fe9785de8765ce7745be67259e57058e46e56e36c55e36b54e26952e16751e0654fdf634ede614d"
    "dd5f4bdc5d4ada5a49d95847d85646d75445d65244d55042d44e41d24b40d1493fd0473dcf453ccd423bcc403acb3e38"
    "ca3b37c83836c73635c53334c43032c32e31c12b30c0282fbe242ebd1f2dbb1b2cba162bb8122ab70d28b50927b40426";

// blues: ColorBrewer via matplotlib's interpolation (tests/reference/blues_colormap.py)
constexpr const char kBluesHex[] =
    "f7fbfff6fafff5fafef5f9fef4f9fef3f8fef2f8fdf2f7fdf1f7fdf0f6fdeff6fceef5fceef5fcedf4fcecf4fbebf3fb"
    "eaf3fbeaf2fbe9f2fae8f1fae7f1fae7f0fae6f0f9e5eff9e4eff9e3eef9e3eef8e2edf8e1edf8e0ecf8dfecf7dfebf7"
    "deebf7ddeaf7dceaf6dce9f6dbe9f6dae8f6d9e8f5d9e7f5d8e7f5d7e6f5d6e6f4d6e5f4d5e5f4d4e4f4d3e4f3d3e3f3"
    "d2e3f3d1e2f3d0e2f2d0e1f2cfe1f2cee0f2cde0f1cddff1ccdff1cbdef1cadef0caddf0c9ddf0c8dcf0c7dcefc7dbef"
    "c6dbefc4daeec3daeec2d9eec1d9edbfd8edbed8ecbdd7ecbcd7ebbad6ebb9d6eab8d5eab7d4eab5d4e9b4d3e9b3d3e8"
    "b2d2e8b0d2e7afd1e7aed1e7add0e6abd0e6aacfe5a9cfe5a8cee4a6cee4a5cde3a4cce3a3cce3a1cbe2a0cbe29fcae1"
    "9dcae19cc9e19ac8e099c7e097c6df95c5df94c4df92c4de91c3de8fc2de8dc1dd8cc0dd8abfdd89bedc87bddc85bcdc"
    "84bcdb82bbdb81badb7fb9da7db8da7cb7da7ab6d979b5d977b5d975b4d874b3d872b2d871b1d76fb0d76dafd76caed6"
    "6aaed669add568acd566abd465aad464a9d363a8d361a7d260a7d25fa6d15da5d15ca4d05ba3d05aa2cf58a1cf57a0ce"
    "56a0ce549fcd539ecd529dcc519ccc4f9bcb4e9acb4d99ca4b98ca4a98c94997c94896c84695c84594c74493c74292c6"
    "4191c64090c53f8fc53e8ec43d8dc43c8cc33b8bc23a8ac23989c13888c13787c03686c03585bf3484bf3383be3282be"
    "3181bd3080bd2f7fbc2e7ebc2d7dbb2c7cba2b7bba2a7ab92979b92777b82676b82575b72474b72373b62272b62171b5"
    "2070b4206fb41f6eb31e6db21d6cb11c6bb01c6ab01b69af1a68ae1967ad1966ad1865ac1764ab1663aa1562a91561a9"
    "1460a8135fa7125ea6125da6115ca5105ba40f5aa30e59a20e58a20d57a10c56a00b559f0a549e0a539e09529d08519c"
    "08509b084f99084e98084d96084c95084b93084a9108499008488e08478d08468b08458a084488084387084285084184"
    "084082083e81083d7f083c7d083b7c083a7a08397908387708377608367408357308347108337008326e08316d08306b";

// twilight: matplotlib
constexpr const char kTwilightHex[] =
    "e2d9e2e1d9e2e0d9e2ded9e1ddd9e0dcd9dfdad8dfd8d8ded6d7ddd4d6dcd2d5dbd0d4dacdd3d8cbd2d7c8d1d6c5cfd5"
    "c3ced4c0cdd3bdcbd2bacad1b7c8cfb4c7ceb1c5ceaec4cdabc2cca8c0cba5bfcaa2bdca9fbbc99cbac899b8c897b6c7"
    "94b4c791b3c68fb1c68cafc58aadc587abc485aac483a8c481a6c37fa4c37da2c37ba0c2799ec2779cc2759bc17499c1"
    "7297c17095c06f93c06e91c06c8fbf6b8dbf6a8bbf6989be6886be6784be6682bd6580bd647ebc647cbc637abb6278bb"
    "6275ba6173ba6171b9616fb9606cb8606ab76068b66066b65f63b55f61b45f5fb35f5cb25f5ab15f58b05f55af5e53ae"
    "5e51ad5e4eab5e4caa5e49a95e47a75e45a65d42a45d40a25d3da15d3b9f5c389d5c369b5c34995b31975b2f945a2d92"
    "592a8f59288d58268a572487562284552081541f7e531d7b521b77501a744f19714d186d4c176a4a1666491563471460"
    "45135c4313594212564012533e12503d114d3b114b3a114838114637114336114135113f34113d33123c32123a311338"
    "2f14373013373213373312373412383511383711393811393a113a3c113b3e113c40123d42123e44123f461240481341"
    "4b13424d14435014445215455515465716475a16485c17495f174a62184b64194c67194c691a4d6c1b4e6f1c4e711d4f"
    "741e4f761f4f7920507b21507e22508023508325508526508727508a29508c2a508e2c50902e50922f50943150963350"
    "9835509a37509c39509e3b509f3c50a13e50a34050a54350a64550a84750a94950ab4b50ac4d51ae4f51af5251b15452"
    "b25652b35853b45b53b65d54b75f54b86155b96456ba6657bb6858bc6b59bd6d5abe705bbf725cc0745ec1775fc27961"
    "c27c62c37e64c48166c48368c5856ac6886cc68a6ec78d70c78f72c89275c99477c9977aca997dca9b7fcb9e82cba085"
    "cca388cca58bcda78eceaa91ceac95cfae98d0b19bd0b39fd1b5a2d2b7a5d3baa9d4bcacd4beb0d5c0b3d6c2b6d7c4ba"
    "d8c6bdd9c8c0dacac4dbccc7dccdcadccfcdddd1d0ded2d2ded3d5dfd5d7e0d6d9e0d7dbe1d7dce1d8dee2d8dfe2d9e1";

using Table = std::array<std::array<std::uint8_t, 3>, 256>;

constexpr int hexDigit(char c) { return c <= '9' ? c - '0' : c - 'a' + 10; }

constexpr Table decode(const char* hex) {
  Table t{};
  for (int k = 0; k < 256; ++k)
    for (int ch = 0; ch < 3; ++ch)
      t[k][ch] = static_cast<std::uint8_t>(hexDigit(hex[6 * k + 2 * ch]) * 16 + hexDigit(hex[6 * k + 2 * ch + 1]));
  return t;
}

constexpr Table kViridis = decode(kViridisHex);
constexpr Table kMagma = decode(kMagmaHex);
constexpr Table kRdbu = decode(kRdbuHex);
constexpr Table kCoolwarm = decode(kCoolwarmHex);
constexpr Table kTwilight = decode(kTwilightHex);
constexpr Table kBlues = decode(kBluesHex);

static_assert(sizeof(kViridisHex) == 256 * 6 + 1 && sizeof(kMagmaHex) == 256 * 6 + 1 && sizeof(kRdbuHex) == 256 * 6 + 1 &&
              sizeof(kCoolwarmHex) == 256 * 6 + 1 && sizeof(kTwilightHex) == 256 * 6 + 1 && sizeof(kBluesHex) == 256 * 6 + 1);

const Table* tableOf(Colormap c) {
  switch (c) {
    case Colormap::Viridis: return &kViridis;
    case Colormap::Magma: return &kMagma;
    case Colormap::RdBu: return &kRdbu;
    case Colormap::Coolwarm: return &kCoolwarm;
    case Colormap::Twilight: return &kTwilight;
    case Colormap::Blues: return &kBlues;
    case Colormap::Gray: return nullptr;
  }
  return nullptr;
}

void requireColormap(const char* fn, Colormap c) {
  switch (c) {
    case Colormap::Viridis:
    case Colormap::Magma:
    case Colormap::Gray:
    case Colormap::RdBu:
    case Colormap::Coolwarm:
    case Colormap::Twilight:
    case Colormap::Blues: return;
  }
  failArgument(fn, "colormap must be one of viridis, magma, gray, rdbu, coolwarm, twilight, blues, got " +
                       std::to_string(static_cast<int>(c)));
}

std::uint8_t lerp8(std::uint8_t a, std::uint8_t b, double f) {
  const double v = static_cast<double>(a) + f * (static_cast<double>(b) - static_cast<double>(a));
  return static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 255.0)));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] names and kinds
// ---------------------------------------------------------------------------------------------

const char* colormapName(Colormap c) {
  switch (c) {
    case Colormap::Viridis: return "viridis";
    case Colormap::Magma: return "magma";
    case Colormap::Gray: return "gray";
    case Colormap::RdBu: return "rdbu";
    case Colormap::Coolwarm: return "coolwarm";
    case Colormap::Twilight: return "twilight";
    case Colormap::Blues: return "blues";
  }
  return "unknown";
}

std::optional<Colormap> parseColormapName(const std::string& name) {
  std::string lower;
  for (char ch : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (lower == "grey") lower = "gray";
  for (Colormap c : allColormaps())
    if (lower == colormapName(c)) return c;
  return std::nullopt;
}

ColormapKind colormapKind(Colormap c) {
  requireColormap("colormapKind", c);
  switch (c) {
    case Colormap::RdBu:
    case Colormap::Coolwarm: return ColormapKind::Diverging;
    case Colormap::Twilight: return ColormapKind::Cyclic;
    default: return ColormapKind::Sequential;
  }
}

std::vector<Colormap> allColormaps() {
  return {Colormap::Viridis, Colormap::Magma, Colormap::Gray, Colormap::RdBu, Colormap::Coolwarm, Colormap::Twilight, Colormap::Blues};
}

// ---------------------------------------------------------------------------------------------
// [SECTION] scale and lookup
// ---------------------------------------------------------------------------------------------

namespace {

// A scale checked once and reduced to what t needs; tOf is colormapT's arithmetic, shared by the
// one-value and the many-value forms so that they give the same bits.
struct PreparedScale {
  ColormapKind kind = ColormapKind::Sequential;
  double lo = 0.0, hi = 1.0;   // sequential
  double a = 0.0;              // diverging: max(|min|, |max|)
  double period = 1.0;         // cyclic
};

PreparedScale prepareScale(const char* fn, const ColorScale& s) {
  PreparedScale p;
  p.kind = colormapKind(s.map);
  if (p.kind == ColormapKind::Cyclic) {
    requirePositive(fn, "scale.period", s.period);
    p.period = static_cast<double>(s.period);
    return p;
  }
  requireFinite(fn, "scale.min", s.min);
  requireFinite(fn, "scale.max", s.max);
  p.lo = s.min;
  p.hi = s.max;
  p.a = std::max(std::fabs(static_cast<double>(s.min)), std::fabs(static_cast<double>(s.max)));
  return p;
}

template <ColormapKind K>
float tOfKind(const PreparedScale& p, float v) {
  double t = 0.5;
  if constexpr (K == ColormapKind::Sequential) {
    if (p.hi > p.lo) t = (static_cast<double>(v) - p.lo) / (p.hi - p.lo);  // an empty range maps to the middle
  } else if constexpr (K == ColormapKind::Diverging) {
    if (p.a > 0) t = 0.5 + 0.5 * static_cast<double>(v) / p.a;
  } else {
    const double turns = static_cast<double>(v) / p.period;
    t = turns - std::floor(turns);
  }
  return static_cast<float>(std::clamp(t, 0.0, 1.0));
}

float tOf(const PreparedScale& p, float v) {
  switch (p.kind) {
    case ColormapKind::Sequential: return tOfKind<ColormapKind::Sequential>(p, v);
    case ColormapKind::Diverging: return tOfKind<ColormapKind::Diverging>(p, v);
    case ColormapKind::Cyclic: break;
  }
  return tOfKind<ColormapKind::Cyclic>(p, v);
}

// The lookup loop for one kind of scale, so that t's arithmetic is inlined into it (a picture
// has a few hundred thousand cells, coloured on the UI thread whenever a new one arrives).
template <ColormapKind K>
void lutColorsOfKind(const PreparedScale& p, const std::array<Rgba8, 256>& lut, std::span<const float> values,
                     std::span<Rgba8> out) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    const float v = values[i];
    out[i] = std::isfinite(v) ? lut[static_cast<std::size_t>(std::clamp(static_cast<int>(tOfKind<K>(p, v) * 255.0f + 0.5f), 0, 255))]
                              : kMaskColor;
  }
}

}  // namespace

float colormapT(const ColorScale& s, float v) {
  requireColormap("colormapT", s.map);
  if (!std::isfinite(v)) return std::numeric_limits<float>::quiet_NaN();
  return tOf(prepareScale("colormapT", s), v);
}

void colormapLutColors(const ColorScale& s, std::span<const float> values, std::span<Rgba8> out) {
  const char* fn = "colormapLutColors";
  requireColormap(fn, s.map);
  if (out.size() != values.size())
    failArgument(fn, "out must hold one colour per value (" + std::to_string(values.size()) + "), got " +
                         std::to_string(out.size()));
  // The scale is checked only when some value is finite, as colormapT does.
  if (std::none_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); })) {
    std::fill(out.begin(), out.end(), kMaskColor);
    return;
  }
  const PreparedScale p = prepareScale(fn, s);
  const std::array<Rgba8, 256> lut = colormapLut(s.map);
  switch (p.kind) {
    case ColormapKind::Sequential: return lutColorsOfKind<ColormapKind::Sequential>(p, lut, values, out);
    case ColormapKind::Diverging: return lutColorsOfKind<ColormapKind::Diverging>(p, lut, values, out);
    case ColormapKind::Cyclic: return lutColorsOfKind<ColormapKind::Cyclic>(p, lut, values, out);
  }
}

Rgba8 colormapColor(Colormap c, float t) {
  requireColormap("colormapColor", c);
  if (std::isnan(t)) return kMaskColor;
  const double tc = std::clamp(static_cast<double>(t), 0.0, 1.0);
  if (c == Colormap::Gray) {
    const auto g = static_cast<std::uint8_t>(std::lround(tc * 255.0));
    return {g, g, g, 255};
  }
  const Table& tab = *tableOf(c);
  std::size_t i0 = 0, i1 = 0;
  double f = 0.0;
  if (colormapKind(c) == ColormapKind::Cyclic) {
    // Entries sit at t = k/256; t = 1 wraps onto entry 0, so t = 0 and t = 1 are one colour.
    const double x = tc * 256.0;
    const double fl = std::floor(x);
    f = x - fl;
    i0 = static_cast<std::size_t>(fl) % 256;
    i1 = (i0 + 1) % 256;
  } else {
    const double x = tc * 255.0;
    const double fl = std::floor(x);
    f = x - fl;
    i0 = std::min<std::size_t>(static_cast<std::size_t>(fl), 255);
    i1 = std::min<std::size_t>(i0 + 1, 255);
  }
  return {lerp8(tab[i0][0], tab[i1][0], f), lerp8(tab[i0][1], tab[i1][1], f), lerp8(tab[i0][2], tab[i1][2], f), 255};
}

Rgba8 mapValue(const ColorScale& s, float v) {
  if (!std::isfinite(v)) {
    requireColormap("mapValue", s.map);
    return kMaskColor;
  }
  return colormapColor(s.map, colormapT(s, v));
}

std::array<Rgba8, 256> colormapLut(Colormap c) {
  requireColormap("colormapLut", c);
  std::array<Rgba8, 256> lut{};
  for (int k = 0; k < 256; ++k) lut[k] = colormapColor(c, static_cast<float>(k) / 255.0f);
  return lut;
}

Colormap defaultColormapFor(float min, float max, bool isAngle) {
  if (isAngle) return Colormap::Twilight;
  if (std::isfinite(min) && std::isfinite(max) && min < 0.0f && max > 0.0f) return Colormap::RdBu;
  return Colormap::Viridis;
}

}  // namespace posviz
