# ruff: noqa: E501  (one form per line: the table reads like the spec's syntax blocks)
"""The PTX ISA 9.0 instruction table, in the notation of opspec.py.

Written from the syntax blocks and target/version notes of the public PTX ISA 9.0
specification, then checked against ptxas 13.0.88 with scripts/ptx_table_selfcheck.py (every
form's sample must be accepted on a target that has it; gates must reject the target below).
Where ptxas and the spec disagree, ptxas wins and a comment says so.
"""

from __future__ import annotations

import functools

from openptxas.ptx.opspec import Form, parse_table

_INT = "u16 u32 u64 s16 s32 s64"
_ALLT = "b8 b16 b32 b64 b128 u8 u16 u32 u64 s8 s16 s32 s64 f32 f64"  # ptxas: no f16 ld/st

# name -> (category, values). The category picks the diagnostic when a required one is missing.
_SETS_TEXT = f"""
rnd       rnd     rn rz rm rp
irnd      rnd     rni rzi rmi rpi
frnd2     rnd     rn rz
cmp       cmp     eq ne lt le gt ge lo ls hi hs equ neu ltu leu gtu geu num nan
fcmp      cmp     eq ne lt le gt ge equ neu ltu leu gtu geu num nan
vcmp      cmp     eq ne lt le gt ge
boolop    boolop  and or xor
scope     scope   cta cluster gpu sys
mulmode   mulmode hi lo wide
hilo      mulmode hi lo
ldss      space   const global local param param::entry param::func shared shared::cta shared::cluster
stss      space   global local param param::func shared shared::cta shared::cluster
atss      space   global shared shared::cta shared::cluster
shss      space   shared shared::cta
allss     space   const global local shared shared::cta shared::cluster param param::entry
ldcop     mod     ca cg cs lu cv
stcop     mod     wb cg cs wt
l1ev      mod     L1::evict_normal L1::evict_unchanged L1::evict_first L1::evict_last L1::no_allocate
l2ev      mod     L2::evict_normal L2::evict_first L2::evict_last
hint      mod     L2::cache_hint
pfsize    mod     L2::64B L2::128B L2::256B
vec       vec     v2 v4 v8
vec24     vec     v2 v4
ldtype    type    {_ALLT}
int       type    {_INT}
cvi       type    u8 u16 u32 u64 s8 s16 s32 s64
cvf       type    f16 f32 f64
atype     type    b32 b64 u32 u64 s32 s64 f32 f64
rtype     type    b32 b64 u32 u64 s32 s64 f32 f64
pkf       type    f16 f16x2 bf16 bf16x2
atomop    atomop  and or xor exch add inc dec min max cas
redop     atomop  and or xor add inc dec min max
asem      sem     relaxed acquire release acq_rel
rsem      sem     relaxed release
mblevel   level   cta gl sys
pflevel   cachelevel L1 L2
testop    mod     finite infinite number notanumber normal subnormal
shfmode   mod     up down bfly idx
dim       mod     1d 2d 3d 4d 5d
geom      mod     1d 2d 3d a1d a2d cube acube 2dms a2dms
sgeom     mod     1d 2d 3d a1d a2d
sclamp    mod     trap clamp zero
ctag      mod     cta_group::1 cta_group::2
f8x2      type    e4m3x2 e5m2x2
f6x2      type    e2m3x2 e3m2x2
f8        type    e4m3 e5m2
f8f6f4    type    e4m3 e5m2 e3m2 e2m3 e2m1
mmaf      type    f16 f32
i8        type    u8 s8
i4        type    u4 s4
wlayout   mod     row col
wgshape   shape   m64n8k8 m64n16k8 m64n24k8 m64n32k8 m64n40k8 m64n48k8 m64n56k8 m64n64k8 m64n72k8 m64n80k8 m64n88k8 m64n96k8 m64n104k8 m64n112k8 m64n120k8 m64n128k8 m64n136k8 m64n144k8 m64n152k8 m64n160k8 m64n168k8 m64n176k8 m64n184k8 m64n192k8 m64n200k8 m64n208k8 m64n216k8 m64n224k8 m64n232k8 m64n240k8 m64n248k8 m64n256k8 m64n8k16 m64n16k16 m64n24k16 m64n32k16 m64n40k16 m64n48k16 m64n56k16 m64n64k16 m64n72k16 m64n80k16 m64n88k16 m64n96k16 m64n104k16 m64n112k16 m64n120k16 m64n128k16 m64n136k16 m64n144k16 m64n152k16 m64n160k16 m64n168k16 m64n176k16 m64n184k16 m64n192k16 m64n200k16 m64n208k16 m64n216k16 m64n224k16 m64n232k16 m64n240k16 m64n248k16 m64n256k16 m64n8k32 m64n16k32 m64n24k32 m64n32k32 m64n40k32 m64n48k32 m64n56k32 m64n64k32 m64n72k32 m64n80k32 m64n88k32 m64n96k32 m64n104k32 m64n112k32 m64n120k32 m64n128k32 m64n136k32 m64n144k32 m64n152k32 m64n160k32 m64n168k32 m64n176k32 m64n184k32 m64n192k32 m64n200k32 m64n208k32 m64n216k32 m64n224k32 m64n232k32 m64n240k32 m64n248k32 m64n256k32 m64n8k256 m64n16k256 m64n24k256 m64n32k256 m64n40k256 m64n48k256 m64n56k256 m64n64k256 m64n72k256 m64n80k256 m64n88k256 m64n96k256 m64n104k256 m64n112k256 m64n120k256 m64n128k256 m64n136k256 m64n144k256 m64n152k256 m64n160k256 m64n168k256 m64n176k256 m64n184k256 m64n192k256 m64n200k256 m64n208k256 m64n216k256 m64n224k256 m64n232k256 m64n240k256 m64n248k256 m64n256k256 m64n8k64 m64n16k64 m64n24k64 m64n32k64 m64n40k64 m64n48k64 m64n56k64 m64n64k64 m64n72k64 m64n80k64 m64n88k64 m64n96k64 m64n104k64 m64n112k64 m64n120k64 m64n128k64 m64n136k64 m64n144k64 m64n152k64 m64n160k64 m64n168k64 m64n176k64 m64n184k64 m64n192k64 m64n200k64 m64n208k64 m64n216k64 m64n224k64 m64n232k64 m64n240k64 m64n248k64 m64n256k64
wgshsp    shape   m64n8k16 m64n16k16 m64n24k16 m64n32k16 m64n40k16 m64n48k16 m64n56k16 m64n64k16 m64n72k16 m64n80k16 m64n88k16 m64n96k16 m64n104k16 m64n112k16 m64n120k16 m64n128k16 m64n136k16 m64n144k16 m64n152k16 m64n160k16 m64n168k16 m64n176k16 m64n184k16 m64n192k16 m64n200k16 m64n208k16 m64n216k16 m64n224k16 m64n232k16 m64n240k16 m64n248k16 m64n256k16 m64n8k32 m64n16k32 m64n24k32 m64n32k32 m64n40k32 m64n48k32 m64n56k32 m64n64k32 m64n72k32 m64n80k32 m64n88k32 m64n96k32 m64n104k32 m64n112k32 m64n120k32 m64n128k32 m64n136k32 m64n144k32 m64n152k32 m64n160k32 m64n168k32 m64n176k32 m64n184k32 m64n192k32 m64n200k32 m64n208k32 m64n216k32 m64n224k32 m64n232k32 m64n240k32 m64n248k32 m64n256k32 m64n8k64 m64n16k64 m64n24k64 m64n32k64 m64n40k64 m64n48k64 m64n56k64 m64n64k64 m64n72k64 m64n80k64 m64n88k64 m64n96k64 m64n104k64 m64n112k64 m64n120k64 m64n128k64 m64n136k64 m64n144k64 m64n152k64 m64n160k64 m64n168k64 m64n176k64 m64n184k64 m64n192k64 m64n200k64 m64n208k64 m64n216k64 m64n224k64 m64n232k64 m64n240k64 m64n248k64 m64n256k64
num       mod     x1 x2 x4
tnum      mod     x1 x2 x4 x8 x16 x32 x64 x128
tshape    shape   16x64b 16x128b 16x256b 32x32b
l2prim    mod     L2::evict_last L2::evict_normal L2::evict_first L2::evict_unchanged
l2sec     mod     L2::evict_first L2::evict_unchanged
vsel      mod     b0 b1 b2 b3 h0 h1
"""

_TABLE = """
# ---- integer arithmetic -----------------------------------------------------------------------
add sub
  .int : d, a, b
  .sat.s32 : d, a, b
  {.rnd}{.ftz}{.sat}.f32 : d, a, b
  {.rnd}{.ftz}.f32x2 : d, a, b                                 @sm_100 @ptx8.6
  {.rnd}.f64 : d, a, b
  {.rn}{.ftz}{.sat}.(f16|f16x2) : d, a, b                      @sm_53 @ptx4.2
  {.rn}.(bf16|bf16x2) : d, a, b                                @sm_90 @ptx7.8
  {.rnd}{.sat}.f32.(f16|bf16) : d, a:T1, b                     @sm_100 @ptx8.6
  .cc.(u32|s32|u64|s64) : d, a, b
add
  .(u16x2|s16x2) : d, a, b                                     @sm_90 @ptx8.0
addc subc
  {.cc}.(u32|s32|u64|s64) : d, a, b
mul
  .hilo.int : d, a, b
  .wide.(u16|u32|s16|s32) : d:W, a, b
  {.rnd}{.ftz}{.sat}.f32 : d, a, b
  {.rnd}{.ftz}.f32x2 : d, a, b                                 @sm_100 @ptx8.6
  {.rnd}.f64 : d, a, b
  {.rn}{.ftz}{.sat}.(f16|f16x2) : d, a, b                      @sm_53 @ptx4.2
  {.rn}.(bf16|bf16x2) : d, a, b                                @sm_90 @ptx7.8
mad
  .hilo.int : d, a, b, c
  .wide.(u16|u32|s16|s32) : d:W, a, b, c:W
  .hi.sat.s32 : d, a, b, c
  .hilo.cc.(u32|s32|u64|s64) : d, a, b, c
  .rnd{.ftz}{.sat}.f32 : d, a, b, c
  .rnd.f64 : d, a, b, c
madc
  .hilo{.cc}.(u32|s32|u64|s64) : d, a, b, c
mul24
  .hilo.(u32|s32) : d, a, b
mad24
  .hilo.(u32|s32) : d, a, b, c
  .hi.sat.s32 : d, a, b, c
sad
  .int : d, a, b, c
div
  .int : d, a, b
  .approx{.ftz}.f32 : d, a, b
  .full{.ftz}.f32 : d, a, b
  .rnd{.ftz}.f32 : d, a, b
  .rnd.f64 : d, a, b
rem
  .int : d, a, b
abs neg
  .(s16|s32|s64) : d, a
  {.ftz}.f32 : d, a
  .f64 : d, a
  {.ftz}.(f16|f16x2) : d, a                                    @sm_53 @ptx6.5
  .(bf16|bf16x2) : d, a                                        @sm_80 @ptx7.0
min max
  .int : d, a, b
  .(u16x2|s16x2) : d, a, b                                     @sm_90 @ptx8.0
  .relu.(s16x2|s32) : d, a, b                                  @sm_90 @ptx8.0
  {.ftz}{.NaN}{.xorsign}{.abs}.f32 : d, a, b
  {.ftz}{.NaN}{.abs}.f32 : d, a, b, c                          @sm_100 @ptx8.8
  .f64 : d, a, b
  {.ftz}{.NaN}{.xorsign}{.abs}.(f16|f16x2) : d, a, b           @sm_80 @ptx7.0
  {.NaN}{.xorsign}{.abs}.(bf16|bf16x2) : d, a, b               @sm_80 @ptx7.0
popc clz
  .(b32|b64) : d:u32, a
bfind
  {.shiftamt}.(u32|u64|s32|s64) : d:u32, a
fns
  .b32 : d, a, b:u32, c:s32                                    @ptx6.0
brev
  .(b32|b64) : d, a
bfe
  .(u32|u64|s32|s64) : d, a, b:u32, c:u32
bfi
  .(b32|b64) : d, a, b, c:u32, e:u32
szext
  .(clamp|wrap).(u32|s32) : d, a, b:u32                        @sm_70 @ptx7.6
bmsk
  .(clamp|wrap).b32 : d, a:u32, b:u32                          @sm_70 @ptx7.6
dp4a
  .(u32|s32).(u32|s32) : d:b32, a, b:T1, c:b32                 @sm_61 @ptx5.0
dp2a
  .(lo|hi).(u32|s32).(u32|s32) : d:b32, a, b:T1, c:b32         @sm_61 @ptx5.0

# ---- floating point ----------------------------------------------------------------------------
testp
  .testop.(f32|f64) : p, a
copysign
  .(f32|f64) : d, a, b
fma
  .rnd{.ftz}{.sat}.f32 : d, a, b, c
  .rnd{.ftz}.f32x2 : d, a, b, c                                @sm_100 @ptx8.6
  .rnd.f64 : d, a, b, c
  .rn{.ftz}{.sat}.(f16|f16x2) : d, a, b, c                     @sm_53 @ptx4.2
  .rn{.ftz}.relu.(f16|f16x2) : d, a, b, c                      @sm_80 @ptx7.0
  .rn{.relu}.(bf16|bf16x2) : d, a, b, c                        @sm_80 @ptx7.0
  .rn.oob{.relu}.pkf : d, a, b, c                              @sm_90 @ptx8.1
  .rn.oob.sat.(f16|f16x2) : d, a, b, c                         @sm_90 @ptx8.1
  .rnd{.sat}.f32.(f16|bf16) : d, a:T1, b:T1, c                 @sm_100 @ptx8.6
rcp
  .approx{.ftz}.f32 : d, a
  .rnd{.ftz}.f32 : d, a
  .rnd{.ftz}.f64 : d, a
  .approx.ftz.f64 : d, a
sqrt
  .approx{.ftz}.f32 : d, a
  .rnd{.ftz}.f32 : d, a
  .rnd.f64 : d, a
rsqrt
  .approx{.ftz}.f32 : d, a
  .approx{.ftz}.f64 : d, a
sin cos lg2
  .approx{.ftz}.f32 : d, a
ex2
  .approx{.ftz}.f32 : d, a
  .approx.(f16|f16x2) : d, a                                   @sm_75 @ptx7.0
  .approx.ftz.(bf16|bf16x2) : d, a                             @sm_90 @ptx7.8
tanh
  .approx.f32 : d, a                                           @sm_75 @ptx7.0
  .approx.(f16|f16x2) : d, a                                   @sm_75 @ptx7.0
  .approx.(bf16|bf16x2) : d, a                                 @sm_90 @ptx7.8

# ---- comparison and selection ------------------------------------------------------------------
setp
  .cmp.(b16|b32|b64|u16|u32|u64|s16|s32|s64) : pq, a, b
  .cmp.boolop.(b16|b32|b64|u16|u32|u64|s16|s32|s64) : pq, a, b, q
  .cmp{.ftz}.(f32|f64) : pq, a, b
  .cmp.boolop{.ftz}.(f32|f64) : pq, a, b, q
  .fcmp{.ftz}.(f16|f16x2) : pq, a, b                           @sm_53 @ptx4.2
  .fcmp.boolop{.ftz}.(f16|f16x2) : pq, a, b, q                 @sm_53 @ptx4.2
  .fcmp.(bf16|bf16x2) : pq, a, b                               @sm_90 @ptx7.8
  .fcmp.boolop.(bf16|bf16x2) : pq, a, b, q                     @sm_90 @ptx7.8
set
  .cmp.(u32|s32|f32).(b16|b32|b64|u16|u32|u64|s16|s32|s64) : d, a:T1, b:T1
  .cmp.boolop.(u32|s32|f32).(b16|b32|b64|u16|u32|u64|s16|s32|s64) : d, a:T1, b:T1, q
  .cmp{.ftz}.(u32|s32|f32).(f32|f64) : d, a:T1, b:T1
  .cmp.boolop{.ftz}.(u32|s32|f32).(f32|f64) : d, a:T1, b:T1, q
  .fcmp{.ftz}.(f16|u16|s16|u32|s32).f16 : d, a:T1, b:T1               @sm_53 @ptx4.2
  .fcmp.boolop{.ftz}.(f16|u16|s16|u32|s32).f16 : d, a:T1, b:T1, q     @sm_53 @ptx4.2
  .fcmp{.ftz}.(f16x2|u32|s32).f16x2 : d, a:T1, b:T1                   @sm_53 @ptx4.2
  .fcmp.boolop{.ftz}.(f16x2|u32|s32).f16x2 : d, a:T1, b:T1, q         @sm_53 @ptx4.2
  .fcmp.(bf16|u16|s16|u32|s32).bf16 : d, a:T1, b:T1                    @sm_90 @ptx7.8
  .fcmp.boolop.(bf16|u16|s16|u32|s32).bf16 : d, a:T1, b:T1, q          @sm_90 @ptx7.8
  .fcmp.(bf16x2|u32|s32).bf16x2 : d, a:T1, b:T1                        @sm_90 @ptx7.8
  .fcmp.boolop.(bf16x2|u32|s32).bf16x2 : d, a:T1, b:T1, q              @sm_90 @ptx7.8
selp
  .(b16|b32|b64|u16|u32|u64|s16|s32|s64|f32|f64) : d, a, b, q
slct
  .(b16|b32|b64|u16|u32|u64|s16|s32|s64|f32|f64).s32 : d, a, b, c:s32
  {.ftz}.(b16|b32|b64|u16|u32|u64|s16|s32|s64|f32|f64).f32 : d, a, b, c:f32

# ---- logic and shift ---------------------------------------------------------------------------
and or xor
  .(pred|b16|b32|b64) : d, a, b
not
  .(pred|b16|b32|b64) : d, a
cnot
  .(b16|b32|b64) : d, a
lop3
  .b32 : d, a, b, c, i                                         @sm_50 @ptx4.3
  .(or|and).b32 : dpp, a, b, c, i, q                           @sm_50 @ptx8.2
shf
  .(l|r).(clamp|wrap).b32 : d, a, b, c:u32                     @sm_32 @ptx3.1
shl
  .(b16|b32|b64) : d, a, b:u32
shr
  .(b16|b32|b64|u16|u32|u64|s16|s32|s64) : d, a, b:u32

# ---- data movement -----------------------------------------------------------------------------
mov
  .(pred|b16|b32|b64|u16|u32|u64|s16|s32|s64|f32|f64) : d, a
  .b128 : d, a                                                 @sm_70 @ptx8.3
shfl
  .shfmode.b32 : dp, a, b:b32, c:b32                           @sm_30 @ptx3.0
  .sync.shfmode.b32 : dp, a, b:b32, c:b32, e:u32               @sm_30 @ptx6.0
prmt
  .b32{.(f4e|b4e|rc8|ecl|ecr|rc16)} : d, a, b, c
ld
  {.weak}{.ldss}{.ldcop}{.hint}{.pfsize}{.vec}.ldtype : d, m, pol?
  {.weak}{.ldss}{.l1ev}{.l2ev}{.hint}{.pfsize}{.vec}.ldtype : d, m, pol?
  .volatile{.ldss}{.pfsize}{.vec}.ldtype : d, m
  .relaxed.scope{.ldss}{.l1ev}{.l2ev}{.hint}{.pfsize}{.vec}.ldtype : d, m, pol?     @sm_70 @ptx6.0
  .acquire.scope{.ldss}{.l1ev}{.l2ev}{.hint}{.pfsize}{.vec}.ldtype : d, m, pol?     @sm_70 @ptx6.0
  .mmio.relaxed.sys{.global}.ldtype : d, m                    @sm_70 @ptx8.2
  .global{.(ca|cg|cs)}.nc{.hint}{.pfsize}{.vec}.ldtype : d, m, pol?               @sm_32
  .global.nc{.l1ev}{.l2ev}{.hint}{.pfsize}{.vec}.ldtype : d, m, pol?               @sm_32
ldu
  {.global}{.vec24}.ldtype : d, m
st
  {.weak}{.stss}{.stcop}{.hint}{.vec}.ldtype : m, a, pol?
  {.weak}{.stss}{.l1ev}{.l2ev}{.hint}{.vec}.ldtype : m, a, pol?
  .volatile{.stss}{.vec}.ldtype : m, a
  .relaxed.scope{.stss}{.l1ev}{.l2ev}{.hint}{.vec}.ldtype : m, a, pol?             @sm_70 @ptx6.0
  .release.scope{.stss}{.l1ev}{.l2ev}{.hint}{.vec}.ldtype : m, a, pol?             @sm_70 @ptx6.0
  .mmio.relaxed.sys{.global}.ldtype : m, a                    @sm_70 @ptx8.2
st.async
  {.weak}{.cluster}{.shared::cluster}.mbarrier::complete_tx::bytes{.vec24}.(b32|b64|u32|u64|s32|s64|f32|f64) : m, a, m   @sm_90 @ptx8.1
  {.mmio}.release.(gpu|sys){.global}.(b8|b16|b32|b64|u8|u16|u32|u64|s8|s16|s32|s64|f32|f64) : m, a   @sm_100 @ptx8.7
st.bulk
  {.weak}{.shared::cta} : m, a:b64, i                          @sm_100 @ptx8.6
multimem.ld_reduce
  {.(relaxed|acquire|weak)}{.scope}{.global}.add.(u32|s32|u64) : d, m                 @sm_90 @ptx8.1
  {.(relaxed|acquire|weak)}{.scope}{.global}.(min|max).(u32|s32|u64|s64) : d, m       @sm_90 @ptx8.1
  {.(relaxed|acquire|weak)}{.scope}{.global}.(and|or|xor).(b32|b64) : d, m            @sm_90 @ptx8.1
  {.(relaxed|acquire|weak)}{.scope}{.global}.(min|max|add){.acc::f32}.vec.(f16|f16x2|bf16|bf16x2) : d, m   @sm_90 @ptx8.1
  {.(relaxed|acquire|weak)}{.scope}{.global}.add{.vec24}.f32 : d, m                   @sm_90 @ptx8.1
  {.(relaxed|acquire|weak)}{.scope}{.global}.add.f64 : d, m                           @sm_90 @ptx8.1
multimem.st
  {.(relaxed|release|weak)}{.scope}{.global}.(b32|b64|u32|u64|s32|s64|f32|f64) : m, a   @sm_90 @ptx8.1
  {.(relaxed|release|weak)}{.scope}{.global}.vec.(f16|f16x2|bf16|bf16x2) : m, a        @sm_90 @ptx8.1
  {.(relaxed|release|weak)}{.scope}{.global}.vec24.f32 : m, a                          @sm_90 @ptx8.1
multimem.red
  {.(relaxed|release)}{.scope}{.global}.add.(u32|s32|u64) : m, a                       @sm_90 @ptx8.1
  {.(relaxed|release)}{.scope}{.global}.(min|max).(u32|s32|u64|s64) : m, a             @sm_90 @ptx8.1
  {.(relaxed|release)}{.scope}{.global}.(and|or|xor).(b32|b64) : m, a                  @sm_90 @ptx8.1
  {.(relaxed|release)}{.scope}{.global}.add.vec.(f16|f16x2|bf16|bf16x2) : m, a         @sm_90 @ptx8.1
  {.(relaxed|release)}{.scope}{.global}.add{.vec24}.f32 : m, a                         @sm_90 @ptx8.1
  {.(relaxed|release)}{.scope}{.global}.add.f64 : m, a                                 @sm_90 @ptx8.1
prefetch
  {.(global|local)}.pflevel : m
  {.global}.(L2::evict_last|L2::evict_normal) : m              @sm_80 @ptx7.4
  {.(const|param)}.tensormap : m                               @sm_90 @ptx8.0
prefetchu
  .L1 : m
applypriority
  {.global}.L2::evict_normal : m, i                            @sm_80 @ptx7.4
discard
  {.global}.L2 : m, i                                          @sm_80 @ptx7.4
createpolicy
  .range{.global}.l2prim{.l2sec}.b64 : d, m, a:b32, b:b32      @sm_80 @ptx7.4
  .fractional.l2prim{.l2sec}.b64 : d, a:f32?                   @sm_80 @ptx7.4
  .cvt.L2.b64 : d, a:b64                                       @sm_80 @ptx7.4
isspacep
  .allss : p, a:addr
cvta
  .allss.(u32|u64) : d, a
  .to.allss.(u32|u64) : d, a
cvt
  {.sat}.cvi.cvi : d, a:T1
  .rnd{.sat}.cvf.cvi : d, a:T1
  .rnd.ftz{.sat}.f32.cvi : d, a:T1
  .rnd.bf16.cvi : d, a:T1                                      @sm_90 @ptx7.8
  .irnd{.ftz}{.sat}.cvi.cvf : d, a:T1
  .irnd.cvi.bf16 : d, a:T1                                     @sm_90 @ptx7.8
  {.irnd}{.ftz}{.sat}.f32.f32 : d, a:T1
  {.irnd}{.sat}.f16.f16 : d, a:T1
  {.irnd}{.sat}.f64.f64 : d, a:T1
  {.irnd}.bf16.bf16 : d, a:T1                                  @sm_90 @ptx7.8
  {.ftz}{.sat}.(f32|f64).f16 : d, a:T1
  {.ftz}{.sat}.f64.f32 : d, a:T1
  {.rnd}{.ftz}.f32.bf16 : d, a:T1                              @sm_80 @ptx7.1
  {.rnd}.f64.bf16 : d, a:T1                                    @sm_80 @ptx7.1
  .rnd{.ftz}{.sat}.f16.(f32|f64) : d, a:T1
  .rnd{.ftz}{.sat}.f32.f64 : d, a:T1
  {.rnd}.bf16.f16 : d, a:T1                                    @sm_90 @ptx7.8
  .rnd.bf16.f64 : d, a:T1                                      @sm_90 @ptx7.8
  {.rnd}.f16.bf16 : d, a:T1                                    @sm_90 @ptx7.8
  .frnd2{.relu}{.satfinite}.(f16|bf16).f32 : d, a:T1           @sm_80 @ptx7.0
  .(rm|rp){.ftz}.bf16.f32 : d, a:T1                            @sm_80 @ptx7.0
  .frnd2.ftz.bf16.f32 : d, a:T1                                @sm_80 @ptx7.0
  .frnd2{.relu}{.satfinite}.(f16x2|bf16x2).f32 : d, a:f32, b:f32   @sm_80 @ptx7.0
  .rna{.satfinite}.tf32.f32 : d:b32, a:f32                     @sm_80 @ptx7.0
  .frnd2{.relu}.tf32.f32 : d:b32, a:f32                        @sm_90 @ptx7.8
  .frnd2.satfinite{.relu}.tf32.f32 : d:b32, a:f32              @sm_100 @ptx8.6
  .rn.satfinite{.relu}.f8x2.f32 : d:b16, a:f32, b:f32          @sm_89 @ptx7.8
  .rn.satfinite{.relu}.f8x2.f16x2 : d:b16, a:b32               @sm_89 @ptx7.8
  .rn{.relu}.f16x2.f8x2 : d:b32, a:b16                         @sm_89 @ptx7.8
  .rn.satfinite{.relu}.e2m1x2.f32 : d:b8, a:f32, b:f32         @fam100 @ptx8.6
  .rn{.relu}.f16x2.e2m1x2 : d:b32, a:b8                        @fam100 @ptx8.6
  .rn.satfinite{.relu}.f6x2.f32 : d:b16, a:f32, b:f32          @fam100 @ptx8.6
  .rn{.relu}.f16x2.f6x2 : d:b32, a:b16                         @fam100 @ptx8.6
  .(rz|rp){.satfinite}.ue8m0x2.f32 : d:b16, a:f32, b:f32       @fam100 @ptx8.6
  .(rz|rp){.satfinite}.ue8m0x2.bf16x2 : d:b16, a:b32           @fam100 @ptx8.6
  .rn.bf16x2.ue8m0x2 : d:b32, a:b16                            @fam100 @ptx8.6
  .rs{.relu}{.satfinite}.(f16x2|bf16x2).f32 : d:b32, a:f32, b:f32, c:u32   @fam100 @ptx8.7
  .rs{.relu}.satfinite.(e4m3x4|e5m2x4|e2m1x4|e2m3x4|e3m2x4).f32 : d, v:f32, a:u32   @fam100 @ptx8.7
cvt.pack
  .sat.(u16|s16).s32 : d:b32, a:T1, b:T1                       @sm_72 @ptx6.5
  .sat.(u2|s2|u4|s4|u8|s8).s32.b32 : d:b32, a:T1, b:T1, c:b32  @sm_72 @ptx6.5
mapa
  {.shared::cluster}.(u32|u64) : d, a, b:u32                   @sm_90 @ptx7.8
getctarank
  {.shared::cluster}.(u32|u64) : d:u32, a                      @sm_90 @ptx7.8

# ---- asynchronous copies -----------------------------------------------------------------------
cp.async
  .(ca|cg).shss.global{.hint}{.pfsize} : m, m, i, a:u32?, pol?    @sm_80 @ptx7.0
cp.async.commit_group cp.async.wait_all
  : @sm_80 @ptx7.0
cp.async.wait_group
  : i                                                          @sm_80 @ptx7.0
cp.async.mbarrier.arrive
  {.noinc}{.shss}.b64 : m                                      @sm_80 @ptx7.0
cp.async.bulk
  .(shared::cta|shared::cluster).global.mbarrier::complete_tx::bytes{.multicast::cluster}{.hint} : m, m, a:u32, m, msk?, pol?   @sm_90 @ptx8.0
  .shared::cluster.shared::cta.mbarrier::complete_tx::bytes : m, m, a:u32, m   @sm_90 @ptx8.0
  .global.shared::cta.bulk_group{.hint}{.cp_mask} : m, m, a:u32, pol?, bm?   @sm_90 @ptx8.0
cp.reduce.async.bulk
  .shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.(u32|s32|u64) : m, m, a:u32, m   @sm_90 @ptx8.0
  .shared::cluster.shared::cta.mbarrier::complete_tx::bytes.(inc|dec).u32 : m, m, a:u32, m       @sm_90 @ptx8.0
  .shared::cluster.shared::cta.mbarrier::complete_tx::bytes.(min|max).(u32|s32) : m, m, a:u32, m  @sm_90 @ptx8.0
  .shared::cluster.shared::cta.mbarrier::complete_tx::bytes.(and|or|xor).b32 : m, m, a:u32, m   @sm_90 @ptx8.0
  .global.shared::cta.bulk_group{.hint}.add.(u32|s32|u64|f32|f64) : m, m, a:u32, pol?   @sm_90 @ptx8.0
  .global.shared::cta.bulk_group{.hint}.add.noftz.(f16|bf16) : m, m, a:u32, pol?   @sm_90 @ptx8.0
  .global.shared::cta.bulk_group{.hint}.(inc|dec).u32 : m, m, a:u32, pol?   @sm_90 @ptx8.0
  .global.shared::cta.bulk_group{.hint}.(min|max).(u32|s32|u64|s64) : m, m, a:u32, pol?   @sm_90 @ptx8.0
  .global.shared::cta.bulk_group{.hint}.(min|max).(f16|bf16) : m, m, a:u32, pol?   @sm_90 @ptx8.0
  .global.shared::cta.bulk_group{.hint}.(and|or|xor).(b32|b64) : m, m, a:u32, pol?   @sm_90 @ptx8.0
cp.async.bulk.prefetch
  .L2.global{.hint} : m, a:u32, pol?                         @sm_90 @ptx8.0
cp.async.bulk.tensor
  .dim.(shared::cta|shared::cluster).global{.(tile|tile::gather4|im2col|im2col::w|im2col::w::128)}.mbarrier::complete_tx::bytes{.multicast::cluster}{.ctag}{.hint} : x, x, x, x?, x?, x?   @sm_90 @ptx8.0
  .dim.global.shared::cta{.(tile|tile::scatter4|im2col_no_offs)}.bulk_group{.hint} : x, x, x?   @sm_90 @ptx8.0
cp.reduce.async.bulk.tensor
  .dim.global.shared::cta.redop{.(tile|im2col_no_offs)}.bulk_group{.hint} : x, x, x?   @sm_90 @ptx8.0
cp.async.bulk.prefetch.tensor
  .dim.L2.global{.(tile|tile::gather4|im2col|im2col::w|im2col::w::128)}{.hint} : x, x?, x?   @sm_90 @ptx8.0
cp.async.bulk.commit_group
  : @sm_90 @ptx8.0
cp.async.bulk.wait_group
  {.read} : i                                                  @sm_90 @ptx8.0
tensormap.replace
  .tile.global_address{.(global|shared::cta)}.b1024.b64 : m, a                    @a90 @ptx8.3
  .tile.rank{.(global|shared::cta)}.b1024.b32 : m, a                              @a90 @ptx8.3
  .tile.(box_dim|global_dim|element_stride){.(global|shared::cta)}.b1024.b32 : m, i, a   @a90 @ptx8.3
  .tile.global_stride{.(global|shared::cta)}.b1024.b64 : m, i, a                  @a90 @ptx8.3
  .tile.(elemtype|interleave_layout|swizzle_mode|fill_mode){.(global|shared::cta)}.b1024.b32 : m, i   @a90 @ptx8.3
  .tile.swizzle_atomicity{.(global|shared::cta)}.b1024.b32 : m, i                 @fam100 @ptx8.6
tensormap.cp_fenceproxy
  .global.shared::cta.tensormap::generic.release.scope.sync.aligned : m, m, i   @sm_90 @ptx8.3

# ---- textures and surfaces ---------------------------------------------------------------------
tex
  {.(base|level|grad)}.geom.v4.(u32|s32|f16|f32).(s32|f32) : dp, x, x?, x?, x?, x?
  {.(base|level|grad)}.geom.v2.f16x2.(s32|f32) : dp, x, x?, x?, x?, x?     @sm_53 @ptx4.2
tld4
  .(r|g|b|a).(2d|a2d|cube|acube).v4.(u32|s32|f32).f32 : dp, x, x?, x?
txq
  {.level}.(width|height|depth|channel_data_type|channel_order|normalized_coords|array_size|num_mipmap_levels|num_samples|force_unnormalized_coords|filter_mode|addr_mode_0|addr_mode_1|addr_mode_2|samp_pos).b32 : d, x, x?
istypep
  .(texref|samplerref|surfref) : p, x
suld
  .b.sgeom{.(ca|cg|cs|cv)}{.vec24}.(b8|b16|b32|b64){.sclamp} : d, x
sust
  .b.sgeom{.(wb|cg|cs|wt)}{.vec24}.(b8|b16|b32|b64){.sclamp} : x, a
  .p.(1d|2d|3d){.vec24}.b32{.sclamp} : x, a
sured
  .b.(add|min|max|and|or).(1d|2d|3d).(u32|u64|s32|b32|s64|b64).sclamp : x, a
  .p.(add|min|max|and|or).(1d|2d|3d).(b32|b64).sclamp : x, a
suq
  .(width|height|depth|channel_data_type|channel_order|array_size|memory_layout).b32 : d, x

# ---- control flow ------------------------------------------------------------------------------
bra
  {.uni} : l
brx.idx
  {.uni} : a:u32, l                                            @sm_30 @ptx6.0
call
  {.uni} : x, x?, x?, x?
ret
  {.uni} :
exit trap brkpt
  :

# ---- synchronization ---------------------------------------------------------------------------
bar
  .sync : a:u32, b:u32?
  .arrive : a:u32, b:u32
  .red.popc.u32 : d, a:u32, q
  .red.popc.u32 : d, a:u32, b:u32, q
  .red.(and|or).pred : p, a:u32, q
  .red.(and|or).pred : p, a:u32, b:u32, q
barrier
  .sync{.aligned} : a:u32, b:u32?                              @sm_30 @ptx6.0
  .arrive{.aligned} : a:u32, b:u32                             @sm_30 @ptx6.0
  .red.popc{.aligned}.u32 : d, a:u32, q                        @sm_30 @ptx6.0
  .red.popc{.aligned}.u32 : d, a:u32, b:u32, q                 @sm_30 @ptx6.0
  .red.(and|or){.aligned}.pred : p, a:u32, q                   @sm_30 @ptx6.0
  .red.(and|or){.aligned}.pred : p, a:u32, b:u32, q            @sm_30 @ptx6.0
bar.warp.sync
  : a:u32                                                      @sm_30 @ptx6.0
barrier.cluster
  .arrive{.(release|relaxed)}{.aligned} :                      @sm_90 @ptx7.8
  .wait{.acquire}{.aligned} :                                  @sm_90 @ptx7.8
membar
  .mblevel :
  .proxy.alias :                                               @ptx7.5
fence
  {.(sc|acq_rel|acquire|release)}.scope :                      @sm_70 @ptx6.0
  .acquire.sync_restrict::shared::cluster.cluster :            @sm_90 @ptx8.6
  .release.sync_restrict::shared::cta.cluster :                @sm_90 @ptx8.6
  .mbarrier_init.release.cluster :                             @sm_90 @ptx8.0
  .proxy.alias :                                               @sm_70 @ptx7.5
  .proxy.async{.(global|shared::cta|shared::cluster)} :        @sm_90 @ptx8.0
  .proxy.tensormap::generic.release.scope :                    @sm_90 @ptx8.3
  .proxy.tensormap::generic.acquire.scope : m, i               @sm_90 @ptx8.3
  .proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster :   @sm_90 @ptx8.6
  .proxy.async::generic.release.sync_restrict::shared::cta.cluster :       @sm_90 @ptx8.6
atom
  {.asem}{.scope}{.atss}.add{.hint}.(u32|s32|u64|f32|f64) : d, m, a, pol?
  {.asem}{.scope}{.atss}.(inc|dec){.hint}.u32 : d, m, a, pol?
  {.asem}{.scope}{.atss}.(and|or|xor){.hint}.(b32|b64) : d, m, a, pol?
  {.asem}{.scope}{.atss}.exch{.hint}.(b32|b64) : d, m, a, pol?
  {.asem}{.scope}{.atss}.(min|max){.hint}.(u32|s32|u64|s64) : d, m, a, pol?
  {.asem}{.scope}{.atss}.cas.(b32|b64) : d, m, a, b
  {.asem}{.scope}{.atss}.cas.b16 : d, m, a, b                  @sm_70 @ptx6.3
  {.asem}{.scope}{.atss}.cas.b128 : d, m, a, b                 @sm_90 @ptx8.3
  {.asem}{.scope}{.atss}.exch{.hint}.b128 : d, m, a, pol?    @sm_90 @ptx8.3
  {.asem}{.scope}{.atss}.add.noftz{.hint}.(f16|f16x2|bf16|bf16x2) : d, m, a, pol?   @sm_70 @ptx6.3
  {.asem}{.scope}{.global}.add{.hint}.vec24.f32 : d, m, a, pol?                     @sm_90 @ptx8.1
  {.asem}{.scope}{.global}.(add|min|max).noftz{.hint}.vec.(f16|bf16|f16x2|bf16x2) : d, m, a, pol?   @sm_90 @ptx8.1
red
  {.rsem}{.scope}{.atss}.add{.hint}.(u32|s32|u64|f32|f64) : m, a, pol?
  {.rsem}{.scope}{.atss}.(inc|dec){.hint}.u32 : m, a, pol?
  {.rsem}{.scope}{.atss}.(and|or|xor){.hint}.(b32|b64) : m, a, pol?
  {.rsem}{.scope}{.atss}.(min|max){.hint}.(u32|s32|u64|s64) : m, a, pol?
  {.rsem}{.scope}{.atss}.add.noftz{.hint}.(f16|f16x2|bf16|bf16x2) : m, a, pol?     @sm_70 @ptx6.3
  {.rsem}{.scope}{.global}.add{.hint}.vec24.f32 : m, a, pol?                       @sm_90 @ptx8.1
  {.rsem}{.scope}{.global}.(add|min|max).noftz{.hint}.vec.(f16|bf16|f16x2|bf16x2) : m, a, pol?   @sm_90 @ptx8.1
red.async
  .relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.add.(u32|s32|u64) : m, a, m   @sm_90 @ptx8.1
  .relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.(inc|dec).u32 : m, a, m       @sm_90 @ptx8.1
  .relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.(min|max).(u32|s32) : m, a, m  @sm_90 @ptx8.1
  .relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.(and|or|xor).b32 : m, a, m     @sm_90 @ptx8.1
  {.mmio}.release.gpu{.global}.add.(u32|s32|u64|s64) : m, a    @sm_100 @ptx8.7
vote
  .(all|any|uni).pred : p, q
  .ballot.b32 : d, q
  .sync.(all|any|uni).pred : p, q, a:u32                       @sm_30 @ptx6.0
  .sync.ballot.b32 : d, q, a:u32                               @sm_30 @ptx6.0
match
  .sync.any.(b32|b64) : d:b32, a, b:u32                        @sm_70 @ptx6.0
  .sync.all.(b32|b64) : dp:b32, a, b:u32                       @sm_70 @ptx6.0
activemask
  .b32 : d                                                     @sm_30 @ptx6.2
redux
  .sync.(add|min|max).(u32|s32) : d, a, b:u32                  @sm_80 @ptx7.0
  .sync.(and|or|xor).b32 : d, a, b:u32                         @sm_80 @ptx7.0
  .sync.(min|max){.abs}{.NaN}.f32 : d, a, b:u32                @fam100 @ptx8.6
griddepcontrol
  .(launch_dependents|wait) :                                  @sm_90 @ptx7.8
elect
  .sync : x, a:b32                                             @sm_90 @ptx8.0
mbarrier.init
  {.shss}.b64 : m, a:b32                                       @sm_80 @ptx7.0
mbarrier.inval
  {.shss}.b64 : m                                              @sm_80 @ptx7.0
mbarrier.expect_tx mbarrier.complete_tx
  {.relaxed}{.(cta|cluster)}{.(shared|shared::cta|shared::cluster)}.b64 : m, a:b32   @sm_90 @ptx8.0
mbarrier.arrive mbarrier.arrive_drop
  {.(release|relaxed)}{.(cta|cluster)}{.shss}.b64 : ds:b64, m, a:b32?                @sm_80 @ptx7.0
  {.(release|relaxed)}{.(cta|cluster)}.shared::cluster.b64 : ds:b64, m, a:b32?       @sm_90 @ptx8.0
  .expect_tx{.(release|relaxed)}{.(cta|cluster)}{.(shared|shared::cta|shared::cluster)}.b64 : ds:b64, m, a:b32   @sm_90 @ptx8.0
  .noComplete{.release}{.cta}{.shss}.b64 : ds:b64, m, a:b32    @sm_80 @ptx7.0
mbarrier.test_wait
  {.(acquire|relaxed)}{.(cta|cluster)}{.shss}.b64 : p, m, a:b64     @sm_80 @ptx7.0
  .parity{.(acquire|relaxed)}{.(cta|cluster)}{.shss}.b64 : p, m, a:b32   @sm_80 @ptx7.1
mbarrier.try_wait
  {.(acquire|relaxed)}{.(cta|cluster)}{.shss}.b64 : p, m, a:b64, b:b32?     @sm_90 @ptx7.8
  .parity{.(acquire|relaxed)}{.(cta|cluster)}{.shss}.b64 : p, m, a:b32, b:b32?   @sm_90 @ptx7.8
mbarrier.pending_count
  .b64 : d:b32, a:b64                                          @sm_80 @ptx7.0
clusterlaunchcontrol.try_cancel
  .async{.shared::cta}.mbarrier::complete_tx::bytes.b128 : m, m   @sm_100 @ptx8.6
  .async{.shared::cta}.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 : m, m   @a100 @ptx8.6
clusterlaunchcontrol.query_cancel
  .is_canceled.pred.b128 : p, a:b128                           @sm_100 @ptx8.6
  .get_first_ctaid.v4.b32.b128 : v, a:b128                     @sm_100 @ptx8.6
  .(get_first_ctaid::x|get_first_ctaid::y|get_first_ctaid::z).b32.b128 : d, a:b128   @sm_100 @ptx8.6

# ---- matrix instructions -----------------------------------------------------------------------
wmma.load
  .(a|b|c).sync.aligned.wlayout.(m16n16k16|m8n32k16|m32n8k16|m16n16k8|m8n8k4|m8n8k32|m8n8k128){.(global|shared|shared::cta)}.(f16|s8|u8|f32|s32|bf16|tf32|f64|s4|u4|b1) : v, m, a:u32?   @sm_70 @ptx6.0
wmma.store
  .d.sync.aligned.wlayout.(m16n16k16|m8n32k16|m32n8k16|m16n16k8|m8n8k4|m8n8k32|m8n8k128){.(global|shared|shared::cta)}.(f16|f32|s32|f64) : m, v, a:u32?   @sm_70 @ptx6.0
wmma.mma
  .sync.aligned.wlayout.wlayout.(m16n16k16|m8n32k16|m32n8k16).mmaf.mmaf : v, v, v, v   @sm_70 @ptx6.0
  .sync.aligned.wlayout.wlayout.(m16n16k16|m8n32k16|m32n8k16).s32.i8.i8.s32{.satfinite} : v, v, v, v   @sm_72 @ptx6.3
  .sync.aligned.wlayout.wlayout.(m16n16k16|m8n32k16|m32n8k16|m16n16k8).f32.(bf16|tf32).(bf16|tf32).f32 : v, v, v, v   @sm_80 @ptx7.0
  .sync.aligned.wlayout.wlayout.m8n8k4{.rnd}.f64.f64.f64.f64 : v, v, v, v   @sm_80 @ptx7.0
  .sync.aligned.row.col.m8n8k32.s32.i4.i4.s32{.satfinite} : v, v, v, v   @sm_75 @ptx6.3
  .(xor|and).popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 : v, v, v, v   @sm_75 @ptx6.3
mma
  .sync.aligned.m8n8k4.wlayout.wlayout.mmaf.f16.f16.mmaf : v, v, v, v          @sm_70 @ptx6.4
  .sync.aligned.(m16n8k8|m16n8k16).row.col.mmaf.f16.f16.mmaf : v, v, v, v      @sm_75 @ptx6.5
  .sync.aligned.(m16n8k4|m16n8k8).row.col.f32.tf32.tf32.f32 : v, v, v, v       @sm_80 @ptx7.0
  .sync.aligned.(m16n8k8|m16n8k16).row.col.f32.bf16.bf16.f32 : v, v, v, v      @sm_80 @ptx7.0
  .sync.aligned.(m16n8k16|m16n8k32).row.col.mmaf.f8.f8.mmaf : v, v, v, v       @sm_89 @ptx8.4
  .sync.aligned.m16n8k32.row.col.kind::f8f6f4.mmaf.f8f6f4.f8f6f4.mmaf : v, v, v, v   @fam120 @ptx8.7
  .sync.aligned.(m8n8k4|m16n8k4|m16n8k8|m16n8k16).row.col.f64.f64.f64.f64 : v, v, v, v   @sm_80 @ptx7.0
  .sync.aligned.(m8n8k16|m16n8k16|m16n8k32).row.col{.satfinite}.s32.i8.i8.s32 : v, v, v, v   @sm_75 @ptx6.5
  .sync.aligned.(m8n8k32|m16n8k32|m16n8k64).row.col{.satfinite}.s32.i4.i4.s32 : v, v, v, v   @sm_75 @ptx6.5
  .sync.aligned.(m8n8k128|m16n8k128|m16n8k256).row.col.s32.b1.b1.s32.(xor|and).popc : v, v, v, v   @sm_75 @ptx6.5
  .(sp|sp::ordered_metadata).sync.aligned.(m16n8k16|m16n8k32).row.col.mmaf.f16.f16.mmaf : v, v, v, v, a:b32, i   @sm_80 @ptx7.1
  .(sp|sp::ordered_metadata).sync.aligned.(m16n8k16|m16n8k32).row.col.f32.bf16.bf16.f32 : v, v, v, v, a:b32, i   @sm_80 @ptx7.1
  .(sp|sp::ordered_metadata).sync.aligned.(m16n8k8|m16n8k16).row.col.f32.tf32.tf32.f32 : v, v, v, v, a:b32, i   @sm_80 @ptx7.1
  .(sp|sp::ordered_metadata).sync.aligned.m16n8k64.row.col.mmaf.f8.f8.mmaf : v, v, v, v, a:b32, i   @sm_89 @ptx8.4
  .(sp|sp::ordered_metadata).sync.aligned.(m16n8k32|m16n8k64|m16n8k128).row.col{.satfinite}.s32.(u8|s8|u4|s4).(u8|s8|u4|s4).s32 : v, v, v, v, a:b32, i   @sm_80 @ptx7.1
ldmatrix
  .sync.aligned.(m8n8|m16n16).num{.trans}{.shss}.(b16|b8) : v, m                @sm_75 @ptx6.5
  .sync.aligned.m8n16.num{.shss}.b8x16.(b6x16_p32|b4x16_p64) : v, m             @fam100 @ptx8.6
  .sync.aligned.m16n16.num.trans{.shss}.b8x16.(b6x16_p32|b4x16_p64) : v, m      @fam100 @ptx8.6
stmatrix
  .sync.aligned.(m8n8|m16n8).num{.trans}{.shss}.(b16|b8) : m, v                 @sm_90 @ptx7.8
movmatrix
  .sync.aligned.m8n8.trans.b16 : d:b32, a:b32                  @sm_75 @ptx7.8
wgmma.fence wgmma.commit_group
  .sync.aligned :                                              @x90a @ptx8.0
wgmma.wait_group
  .sync.aligned : i                                            @x90a @ptx8.0
wgmma.mma_async
  .sync.aligned.wgshape.mmaf.(f16|bf16|tf32|e4m3|e5m2).(f16|bf16|tf32|e4m3|e5m2) : v, x, a:b64, q, x?, x?, x?, x?   @x90a @ptx8.0
  .sync.aligned.wgshape{.satfinite}.s32.i8.i8 : v, x, a:b64, q                    @x90a @ptx8.0
  .sync.aligned.wgshape.s32.b1.b1.and.popc : v, x, a:b64, q                       @x90a @ptx8.0
  .sp.sync.aligned.wgshsp.mmaf.(f16|bf16|tf32|e4m3|e5m2).(f16|bf16|tf32|e4m3|e5m2) : v, x, a:b64, b:b32, i, q, x?, x?, x?, x?   @x90a @ptx8.2
  .sp.sync.aligned.wgshsp{.satfinite}.s32.i8.i8 : v, x, a:b64, b:b32, i, q      @x90a @ptx8.2

# ---- tcgen05 (sm_100 family) -------------------------------------------------------------------
tcgen05.alloc
  .ctag.sync.aligned{.shared::cta}.b32 : m, a:b32              @fam100 @ptx8.6
tcgen05.dealloc
  .ctag.sync.aligned.b32 : a:b32, b:b32                        @fam100 @ptx8.6
tcgen05.relinquish_alloc_permit
  .ctag.sync.aligned :                                         @fam100 @ptx8.6
tcgen05.ld
  .sync.aligned.tshape.tnum{.pack::16b}.b32 : v, m             @fam100 @ptx8.6
  .sync.aligned.16x32bx2.tnum{.pack::16b}.b32 : v, m, i        @fam100 @ptx8.6
  .red.sync.aligned.(32x32b|16x32bx2).tnum.(min|max){.abs}{.NaN}.f32 : v, x, m, i?   @fam103 @ptx8.8
  .red.sync.aligned.(32x32b|16x32bx2).tnum.(min|max).(u32|s32) : v, x, m, i?          @fam103 @ptx8.8
tcgen05.st
  .sync.aligned.tshape.tnum{.unpack::16b}.b32 : m, v           @fam100 @ptx8.6
  .sync.aligned.16x32bx2.tnum{.unpack::16b}.b32 : m, i, v      @fam100 @ptx8.6
tcgen05.wait
  .(::ld|::st).sync.aligned :                                  @fam100 @ptx8.6
tcgen05.fence
  .(::before_thread_sync|::after_thread_sync) :                @fam100 @ptx8.6
tcgen05.commit
  .ctag.mbarrier::arrive::one{.shared::cluster}{.multicast::cluster}.b64 : m, msk?   @fam100 @ptx8.6
tcgen05.shift
  .ctag.down : m                                               @fam100 @ptx8.6
tcgen05.cp
  .ctag.(128x256b|4x256b|128x128b){.b8x16}{.(b6x16_p32|b4x16_p64)} : m, a:b64   @fam100 @ptx8.6
  .ctag.64x128b.(warpx2::02_13|warpx2::01_23){.b8x16}{.(b6x16_p32|b4x16_p64)} : m, a:b64   @fam100 @ptx8.6
  .ctag.32x128b.warpx4{.b8x16}{.(b6x16_p32|b4x16_p64)} : m, a:b64   @fam100 @ptx8.6
tcgen05.mma
  {.(sp|ws)}.ctag.(kind::f16|kind::tf32|kind::f8f6f4|kind::i8|kind::mxf8f6f4|kind::mxf4|kind::mxf4nvf4){.block_scale}{.(scale_vec::1X|scale_vec::2X|scale_vec::4X|block16|block32)}{.ashift}{.(collector::a::fill|collector::a::use|collector::a::lastuse|collector::a::discard|collector::b0::fill|collector::b0::use|collector::b0::lastuse|collector::b0::discard|collector::b1::fill|collector::b1::use|collector::b1::lastuse|collector::b1::discard|collector::b2::fill|collector::b2::use|collector::b2::lastuse|collector::b2::discard|collector::b3::fill|collector::b3::use|collector::b3::lastuse|collector::b3::discard)} : x, x, x, x, x?, x?, x?, x?, x?   @fam100 @ptx8.6

# ---- miscellaneous -----------------------------------------------------------------------------
nanosleep
  .u32 : a                                                     @sm_70 @ptx6.3
pmevent
  {.mask} : i
setmaxnreg
  .(inc|dec).sync.aligned.u32 : i                              @a90 @ptx8.0
stacksave
  .(u32|u64) : d                                               @sm_52 @ptx7.3
stackrestore
  .(u32|u64) : a                                               @sm_52 @ptx7.3
alloca
  .(u32|u64) : d, a, i?                                        @sm_52 @ptx7.3

# ---- video instructions ------------------------------------------------------------------------
vadd vsub vabsdiff vmin vmax
  .(u32|s32).(u32|s32).(u32|s32){.sat}{.(add|min|max)} : d, x, x, x?
vshl vshr
  .(u32|s32).(u32|s32).u32{.sat}.(clamp|wrap){.(add|min|max)} : d, x, x, x?
vmad
  .(u32|s32).(u32|s32).(u32|s32){.po}{.sat}{.(shr7|shr15)} : d, x, x, x
vset
  .(u32|s32).(u32|s32).vcmp{.(add|min|max)} : d, x, x, x?
vadd2 vsub2 vavrg2 vabsdiff2 vmin2 vmax2 vadd4 vsub4 vavrg4 vabsdiff4 vmin4 vmax4
  .(u32|s32).(u32|s32).(u32|s32){.sat}{.add} : d, x, x, x
vset2 vset4
  .(u32|s32).(u32|s32).vcmp{.add} : d, x, x, x
"""


def _parse_sets() -> dict[str, tuple[str, frozenset[str]]]:
    out: dict[str, tuple[str, frozenset[str]]] = {}
    for line in _SETS_TEXT.strip().splitlines():
        name, cat, *vals = line.split()
        out[name] = (cat, frozenset(vals))
    return out


@functools.cache
def sets() -> dict[str, tuple[str, frozenset[str]]]:
    return _parse_sets()


@functools.cache
def table() -> dict[str, tuple[Form, ...]]:
    """Mnemonic -> its forms (parsed once, on first use)."""
    return parse_table(_TABLE, sets())


@functools.cache
def vocabulary() -> frozenset[str]:
    """Every modifier some form of some instruction accepts (else: 'Unknown modifier')."""
    out: set[str] = set()
    for forms in table().values():
        for f in forms:
            for g in (*f.groups, *f.type_slots):
                out.update(g.values)
    return frozenset(out)
