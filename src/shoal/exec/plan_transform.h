// PlanTransform: a rewrite of a whole physical plan just before it runs or is explained, returning
// a plan that produces the same rows. The distributed layer provides the ones that cut a plan into
// stages run on workers or through the file shuffle; the engine layer applies them.
#pragma once

#include <functional>
#include <memory>

#include "shoal/common/result.h"
#include "shoal/exec/execution_plan.h"

namespace shoal::exec {

using PlanTransform = std::function<Result<ExecPlanPtr>(
    const ExecPlanPtr& plan, const std::shared_ptr<TaskContext>& context)>;

}  // namespace shoal::exec
