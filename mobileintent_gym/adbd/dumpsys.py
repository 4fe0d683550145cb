"""``dumpsys`` on the virtual device: the lines adb-based agent frameworks grep for.

Real dumpsys output runs to thousands of lines; this writes the fields that tools read —
``mCurrentFocus``/``mFocusedApp`` (current activity), ``mCurrentRotation``, the display
viewport with ``orientation=`` and ``physicalFrame=``, the input method in use
(``mCurMethodId``) and whether it shows (``mInputShown``), recent tasks, ``mResumedActivity``,
``ACTIVITY ... pid=``, the power state and a full battery on AC power — in Android 12–14's
formats.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mobileintent_gym.adbd.ime import selected
from mobileintent_gym.adbd.shell import Invocation, Output

if TYPE_CHECKING:
    from mobileintent_gym.adbd.device import VirtualDevice


class Dumpsys:
    """``dumpsys SERVICE [ARGS]`` for the services tools read.

    Those are window, display, input, input_method, activity, power, battery and
    SurfaceFlinger (its display id).
    """

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device

    def __call__(self, inv: Invocation) -> Output:
        """Run ``dumpsys``; unknown services answer like Android does."""
        service = inv.argv[1] if len(inv.argv) > 1 else ""
        writer = {"window": self.window, "display": self.display, "input": self.input,
                  "input_method": self.input_method, "activity": self.activity,
                  "power": self.power, "battery": self.battery,
                  "SurfaceFlinger": self.surface_flinger}.get(service)
        if writer is None:
            return Output(f"Can't find service: {service}\n".encode())
        return Output(writer(inv.argv[2:]).encode())

    def _size(self) -> tuple[int, int]:
        return self.device.phone.width, self.device.phone.height

    def window(self, args: list[str]) -> str:
        """Focus, focused app and rotation (``dumpsys window [windows|displays]``)."""
        component = self.device.component()
        width, height = self._size()
        return (
            "WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
            f"  Window #0 Window{{7d1e2f0 u0 {component}}}:\n"
            f"    mDisplayId=0 rootTaskId=1 mSession=Session{{3a1 1234:u0a10123}}\n"
            f"    mFrame=[0,0][{width},{height}]\n"
            "  mGlobalConfiguration={1.0 ?mcc?mnc [en_US] ldltr sw411dp w411dp port}\n"
            f"  mCurrentFocus=Window{{7d1e2f0 u0 {component}}}\n"
            f"  mFocusedApp=ActivityRecord{{5c2b1a0 u0 {component} t12}}\n"
            "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n"
            f"  Display: mDisplayId=0 rootTasks=1\n    init={width}x{height} "
            f"{self.device.density_dpi}dpi cur={width}x{height} app={width}x{height}\n"
            "    mCurrentRotation=ROTATION_0\n    mLastOrientation=-1\n"
        )

    def display(self, args: list[str]) -> str:
        """Display devices and the default viewport (orientation, frames)."""
        width, height = self._size()
        return (
            "DISPLAY MANAGER (dumpsys display)\n"
            f'  DisplayDeviceInfo{{"Built-in Screen": uniqueId="local:0", {width} x {height}, '
            f"density {self.device.density_dpi}, FLAG_DEFAULT_DISPLAY}}\n"
            "  mDefaultViewport=DisplayViewport{type=INTERNAL, valid=true, isActive=true, "
            "displayId=0, uniqueId='local:0', physicalPort=0, orientation=0, "
            f"logicalFrame=Rect(0, 0 - {width}, {height}), "
            f"physicalFrame=Rect(0, 0 - {width}, {height}), "
            f"deviceWidth={width}, deviceHeight={height}}}\n"
        )

    def input(self, args: list[str]) -> str:
        """The input reader's viewport and touchscreen orientation."""
        width, height = self._size()
        return (
            "INPUT MANAGER (dumpsys input)\n\nInput Reader State (Nums of device: 1):\n"
            "  Device 1: virtual_touchscreen\n    Sources: TOUCHSCREEN\n"
            "    Touch Input Mapper (mode - DIRECT):\n      SurfaceOrientation: 0\n"
            f"      SurfaceWidth: {width}px\n      SurfaceHeight: {height}px\n"
            "  Viewports:\n    Viewport INTERNAL: displayId=0, uniqueId=local:0, port=0, "
            f"orientation=0, logicalFrame=[0, 0, {width}, {height}], "
            f"physicalFrame=[0, 0, {width}, {height}], deviceSize=[{width}, {height}], "
            "isActive=[1]\n"
        )

    def input_method(self, args: list[str]) -> str:
        """The input method in use (``mCurMethodId``) and whether it shows.

        ``mInputShown`` stands on a line of its own, as Android 14 writes it.
        """
        shown = str(self.device.phone.keyboard_shown()).lower()
        return (
            "Current Input Method Manager state:\n"
            f"  mCurMethodId={selected(self.device.settings) or 'null'}\n"
            f"  mCurFocusedWindow=Window{{7d1e2f0 u0 {self.device.component()}}}\n"
            "  mRequestedShowExplicitly=false mShowForced=false\n"
            f"  mInputShown={shown}\n"
        )

    def activity(self, args: list[str]) -> str:
        """``recents``, ``activities`` (resumed activity) or ``top`` (all three without args).

        The resumed activity is written as Android 12 and later write it
        (``topResumedActivity=``, ``ResumedActivity:``) and as earlier ones did
        (``mResumedActivity:``), for parsers of either; a recent task is visible when it
        is the app in front.
        """
        component = self.device.component()
        front = component.split("/")[0]
        recents = "ACTIVITY MANAGER RECENT TASKS (dumpsys activity recents)\n" + "".join(
            f"  * Recent #{n}: Task{{{0x4f00 + n:x} #{12 + n} type=standard A=10123:{p} U=0 "
            f"visible={str(n == 0 and p == front).lower()} mode=fullscreen}}\n"
            for n, p in enumerate(self.device.recents)
        )
        record = f"ActivityRecord{{5c2b1a0 u0 {component} t12}}"
        activities = ("ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"
                      f"  topResumedActivity={record}\n  ResumedActivity: {record}\n"
                      f"  mResumedActivity: {record}\n")
        top = f"TASK 12:{component.split('/')[0]}\n  ACTIVITY {component} 5c2b1a0 pid=4321\n"
        parts = {"recents": recents, "activities": activities, "a": activities, "top": top}
        if args and args[0] in parts:
            return parts[args[0]]
        return recents + activities + top

    def power(self, args: list[str]) -> str:
        """Screen on and awake."""
        return ("POWER MANAGER (dumpsys power)\n  mWakefulness=Awake\n"
                "  mHoldingDisplaySuspendBlocker=true\n  Display Power: state=ON\n")

    def battery(self, args: list[str]) -> str:
        """Full, on AC power (the status bar's battery icon is full too)."""
        return ("Current Battery Service state:\n  AC powered: true\n  USB powered: false\n"
                "  Wireless powered: false\n  Dock powered: false\n"
                "  Max charging current: 0\n  Max charging voltage: 0\n"
                "  Charge counter: 4000000\n  status: 5\n  health: 2\n  present: true\n"
                "  level: 100\n  scale: 100\n  voltage: 4400\n  temperature: 250\n"
                "  technology: Li-ion\n")

    def surface_flinger(self, args: list[str]) -> str:
        """The one display's id (``dumpsys SurfaceFlinger --display-id``)."""
        return 'Display 0 (HWC display 0): port=0 pnpId=SIM displayName="SimPhone"\n'
