// Every diagnostic of #fuser.gpu_schedule.
// RUN: fuser-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{a GPU schedule launches at least one block, not 0}}
func.func private @f() attributes {fuser.gpu_schedule = #fuser.gpu_schedule<pointwise, blocks = 0, threads = 256, vector_width = 1>}

// -----

// expected-error @+1 {{a block of 2048 threads; blocks hold 1 to 1024}}
func.func private @f() attributes {fuser.gpu_schedule = #fuser.gpu_schedule<pointwise, blocks = 1, threads = 2048, vector_width = 1>}

// -----

// expected-error @+1 {{vector width 3 is not a power of two}}
func.func private @f() attributes {fuser.gpu_schedule = #fuser.gpu_schedule<pointwise, blocks = 1, threads = 256, vector_width = 3>}

// -----

// expected-error @+1 {{rows_per_block = 4 is for a rows schedule whose threads it divides}}
func.func private @f() attributes {fuser.gpu_schedule = #fuser.gpu_schedule<pointwise, blocks = 1, threads = 256, vector_width = 1, rows_per_block = 4>}

// -----

// expected-error @+1 {{rows_per_block = 3 is for a rows schedule whose threads it divides}}
func.func private @f() attributes {fuser.gpu_schedule = #fuser.gpu_schedule<rows, blocks = 1, threads = 128, vector_width = 1, rows_per_block = 3>}

// -----

// expected-error @+1 {{slices = 32 is for an outer_reduction schedule whose threads it divides}}
func.func private @f() attributes {fuser.gpu_schedule = #fuser.gpu_schedule<rows, blocks = 1, threads = 256, vector_width = 1, slices = 32>}

// -----

// expected-error @+1 {{slices = 3 is for an outer_reduction schedule whose threads it divides}}
func.func private @f() attributes {fuser.gpu_schedule = #fuser.gpu_schedule<outer_reduction, blocks = 1, threads = 256, vector_width = 1, slices = 3>}

// -----

// expected-error @+1 {{load_dim and store_dim belong to transpose schedules, which need both}}
func.func private @f() attributes {fuser.gpu_schedule = #fuser.gpu_schedule<transpose, blocks = 1, threads = 256, vector_width = 1, load_dim = 0>}

// -----

// expected-error @+1 {{load_dim and store_dim belong to transpose schedules, which need both}}
func.func private @f() attributes {fuser.gpu_schedule = #fuser.gpu_schedule<pointwise, blocks = 1, threads = 256, vector_width = 1, load_dim = 0, store_dim = 1>}

// -----

// expected-error @+1 {{a transpose tile spans two different dims, not 1 and 1}}
func.func private @f() attributes {fuser.gpu_schedule = #fuser.gpu_schedule<transpose, blocks = 1, threads = 256, vector_width = 1, load_dim = 1, store_dim = 1>}

// -----

// expected-error @+1 {{a transpose tile spans two different dims, not -1 and 0}}
func.func private @f() attributes {fuser.gpu_schedule = #fuser.gpu_schedule<transpose, blocks = 1, threads = 256, vector_width = 1, load_dim = -1, store_dim = 0>}

// -----

// expected-error @+1 {{groups_per_step = 4 is for a pointwise schedule, at least 1}}
func.func private @f() attributes {fuser.gpu_schedule = #fuser.gpu_schedule<rows, blocks = 1, threads = 128, vector_width = 1, groups_per_step = 4>}

// -----

// expected-error @+1 {{groups_per_step = 0 is for a pointwise schedule, at least 1}}
func.func private @f() attributes {fuser.gpu_schedule = #fuser.gpu_schedule<pointwise, blocks = 1, threads = 128, vector_width = 1, groups_per_step = 0>}
