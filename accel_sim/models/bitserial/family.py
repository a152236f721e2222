"""DaDianNao-style tiles running the bit-serial and precision-exploiting designs behind the family contract.

One family, not one per design: every design shares DaDianNao's tiles, tiling and step order (the
plan) and differs only in what a step costs, a function of the step's value bits; Bit-Tactical and
Diffy are switches on the designs DNNsim pairs them with (``bitserial.design``, ``.tactical``, ``.diffy``).
"""
from accel_sim.foundations.contract import Family, Hook, Section
from accel_sim.models.bitserial.spec import BitSerialSpec

# Imported on first call (Hook): the catalog loads only this family's spec.
account = Hook("accel_sim.models.bitserial.accounting", "account")
fast = Hook("accel_sim.models.bitserial.fast", "fast")
plan = Hook("accel_sim.models.bitserial.plan", "plan")
work_elements = Hook("accel_sim.models.bitserial.plan", "work_elements")
reference = Hook("accel_sim.models.bitserial.reference", "reference")

FAMILY = Family(name="bitserial", plan=plan, fast=fast, reference=reference, account=account,
                work_elements=work_elements, activation_precision=True, shares_work=True,
                section=Section(BitSerialSpec, "DaDianNao, Stripes, ShapeShifter, Loom, Bit-Pragmatic, Laconic and "
                                "Bit-Tactical on DaDianNao-style tiles (family: bitserial)."))
