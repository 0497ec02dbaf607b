// The random streams of the TPC-H base tables: each column's seed and its per-row draw budget, as
// the reference generator (dbgen 2.14) defines them. Together with RowStream (random_stream.h)
// they fix every random value of the data set; changing any number here changes the data.
//
// A budget is the most draws one row can take from the stream (e.g. an address of up to 40
// characters takes 1 + 8 draws); for the lineitem streams it is per order, seven lines of one draw.
#pragma once

#include <cstdint>

#include "shoal/io/tpch/random_stream.h"

namespace shoal::io::tpch {

namespace streams {

inline constexpr int64_t kLinesPerOrderMax = 7;
inline constexpr int64_t kSuppliersPerPart = 4;

// part
inline constexpr StreamSpec kPartMfgr{1, 1};
inline constexpr StreamSpec kPartBrand{46831694, 1};
inline constexpr StreamSpec kPartType{1841581359, 1};
inline constexpr StreamSpec kPartSize{1193163244, 1};
inline constexpr StreamSpec kPartContainer{727633698, 1};
inline constexpr StreamSpec kPartComment{804159733, 2};
inline constexpr StreamSpec kPartName{709314158, 92};  // a shuffle of the 92 colors

// partsupp (a row is a part's four partsupp rows)
inline constexpr StreamSpec kPartSuppQuantity{1671059989, kSuppliersPerPart};
inline constexpr StreamSpec kPartSuppCost{1051288424, kSuppliersPerPart};
inline constexpr StreamSpec kPartSuppComment{1961692154, 2 * kSuppliersPerPart};

// supplier
inline constexpr StreamSpec kSuppAddress{706178559, 9};
inline constexpr StreamSpec kSuppNation{110356601, 1};
inline constexpr StreamSpec kSuppPhone{884434366, 3};
inline constexpr StreamSpec kSuppBalance{962338209, 1};
inline constexpr StreamSpec kSuppComment{1341315363, 2};
// The "Customer ... Complaints/Recommends" comments (the Better Business Bureau rows of Q16).
inline constexpr StreamSpec kSuppBbbJunk{263032577, 1};
inline constexpr StreamSpec kSuppBbbType{753643799, 1};
inline constexpr StreamSpec kSuppBbbSelect{202794285, 1};
inline constexpr StreamSpec kSuppBbbOffset{715851524, 1};

// customer
inline constexpr StreamSpec kCustAddress{881155353, 9};
inline constexpr StreamSpec kCustNation{1489529863, 1};
inline constexpr StreamSpec kCustPhone{1521138112, 3};
inline constexpr StreamSpec kCustBalance{298370230, 1};
inline constexpr StreamSpec kCustSegment{1140279430, 1};
inline constexpr StreamSpec kCustComment{1335826707, 2};

// orders
inline constexpr StreamSpec kOrderClerk{1171034773, 1};
inline constexpr StreamSpec kOrderComment{276090261, 2};
inline constexpr StreamSpec kOrderDate{1066728069, 1};
inline constexpr StreamSpec kOrderPriority{591449447, 1};
inline constexpr StreamSpec kOrderCustKey{851767375, 1};
inline constexpr StreamSpec kOrderLineCount{1434868289, 1};

// lineitem (a row is an order's lines)
inline constexpr StreamSpec kLineQuantity{209208115, kLinesPerOrderMax};
inline constexpr StreamSpec kLineDiscount{554590007, kLinesPerOrderMax};
inline constexpr StreamSpec kLineTax{721958466, kLinesPerOrderMax};
inline constexpr StreamSpec kLineShipInstruct{1371272478, kLinesPerOrderMax};
inline constexpr StreamSpec kLineShipMode{675466456, kLinesPerOrderMax};
inline constexpr StreamSpec kLinePartKey{1808217256, kLinesPerOrderMax};
inline constexpr StreamSpec kLineSupplier{2095021727, kLinesPerOrderMax};
inline constexpr StreamSpec kLineShipDate{1769349045, kLinesPerOrderMax};
inline constexpr StreamSpec kLineCommitDate{904914315, kLinesPerOrderMax};
inline constexpr StreamSpec kLineReceiptDate{373135028, kLinesPerOrderMax};
inline constexpr StreamSpec kLineReturnFlag{717419739, kLinesPerOrderMax};
inline constexpr StreamSpec kLineComment{1095462486, 2 * kLinesPerOrderMax};

// nation, region
inline constexpr StreamSpec kNationComment{606179079, 2};
inline constexpr StreamSpec kRegionComment{1500869201, 2};

// The text pool's sentences come from one sequential stream that is never realigned.
inline constexpr int64_t kTextPoolSeed = 933588178;

}  // namespace streams
}  // namespace shoal::io::tpch
