"""DaDianNao-style tiles running the bit-serial and precision-exploiting designs behind the family contract.

One family, not one per design: every design shares DaDianNao's tiles, tiling and step order (the
plan) and differs only in what a step costs, a function of the step's value bits; Bit-Tactical and
Diffy are switches on the designs DNNsim pairs them with (``bitserial.design``, ``.tactical``, ``.diffy``).
"""
from accel_sim.foundations.contract import Family, Section
from accel_sim.models.bitserial.accounting import account
from accel_sim.models.bitserial.fast import fast
from accel_sim.models.bitserial.plan import plan, work_elements
from accel_sim.models.bitserial.reference import reference
from accel_sim.models.bitserial.spec import BitSerialSpec

FAMILY = Family(name="bitserial", plan=plan, fast=fast, reference=reference, account=account,
                work_elements=work_elements, activation_precision=True,
                section=Section(BitSerialSpec, "DaDianNao, Stripes, ShapeShifter, Loom, Bit-Pragmatic, Laconic and "
                                "Bit-Tactical on DaDianNao-style tiles (family: bitserial)."))
