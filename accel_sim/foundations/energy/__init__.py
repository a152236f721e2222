from accel_sim.foundations.energy.cost import EnergyBreakdown, cost
from accel_sim.foundations.energy.table import EnergyTable, load_energy_table

__all__ = ["EnergyBreakdown", "EnergyTable", "cost", "load_energy_table"]
